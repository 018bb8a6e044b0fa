#!/usr/bin/env bash
# Device job (s57 call 1): issue 9's test evidence on one prebuilt build (E). The device layer's
# driver test (info channel and the run flags' AND per launch), the whole getrf suite
# unfiltered in every precision, memcheck and racecheck on a reduced run, and where the host
# time of a call of one-problem groups on device pointer arrays goes (BLAS_BATCHED_DEBUG=time).
# Build here: bash tools/prebuilt.sh -n e conformance_gpu_getrf internal_device_layer
# From the device tool (carry .devdeps .prebuilt; the -dev debs of .devdeps left out):
#   bash tools/micro/experiments/closing-tests.sh
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; }
R=$OUT/r; mkdir -p $R
d=$PWD/bx-e; mkdir -p $d && tar -C $d -xJf .prebuilt/e.tar.xz && ln -sf libblas_batched.so.0 $d/libblas_batched.so
export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "E: $(tr '\n' ' ' < $d/REVISION)"
t "device layer"
timeout 120 $d/conformance/internal_device_layer > $R/internal_device_layer.log 2>&1
echo "internal_device_layer exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $R/internal_device_layer.log | tr '\n' ' ')"
grep -B2 -A8 "Failure" $R/internal_device_layer.log | head -40
t "getrf suite, 16 shards, unfiltered"
BUILD=$d OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=16 SHARD_TIMEOUT=400 bash tools/gpu-check.sh shards
t "memcheck, reduced"
M="GpuGetrf/*.SingularProblems:GpuGetrf/*.RandomColMajor:GpuGetrf/*.RandomRowMajor:GpuGetrf/*.InverseInOneCall:GpuGetrf/*.RowMajorRowsOn16Bytes"
BUILD=$d OUT=$R/memcheck SHARD_SUITES=conformance_gpu_getrf SHARDS=16 SHARD_TIMEOUT=240 SHARD_TOOL=memcheck SHARD_REDUCED=1 \
  SHARD_FILTER="$M" bash tools/gpu-check.sh shards
t "racecheck, reduced"
RC="GpuGetrf/r64.RandomColMajor:GpuGetrf/c32.RandomRowMajor:GpuGetrf/r32.SingularProblems:GpuGetrf/c64.InverseInOneCall:GpuGetrf/r16.RowMajorRowsOn16Bytes:GpuGetrf/c16.RandomColMajor"
BUILD=$d OUT=$R/racecheck SHARD_SUITES=conformance_gpu_getrf SHARDS=6 SHARD_TIMEOUT=200 SHARD_TOOL=racecheck SHARD_REDUCED=1 \
  SHARD_FILTER="$RC" bash tools/gpu-check.sh shards
t "one-problem groups on device pointer arrays: E, then F (a thread team for many groups), phases"
g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include tools/micro/many_groups.cpp -o $R/many_groups \
  -L$d -lblas_batched -L/usr/local/cuda/lib64 -lcudart && {
  f=$PWD/bx-f; [ -f .prebuilt/f.tar.xz ] && mkdir -p $f && tar -C $f -xJf .prebuilt/f.tar.xz && ln -sf libblas_batched.so.0 $f/libblas_batched.so
  for v in e f e f; do
    [ -d bx-$v ] || continue
    echo "== $v: $(tr '\n' ' ' < bx-$v/REVISION)"
    LD_LIBRARY_PATH=$PWD/bx-$v timeout 60 $R/many_groups 24 1,16,217013
    LD_LIBRARY_PATH=$PWD/bx-$v timeout 60 $R/many_groups 8 1,1953125
  done
  for v in e f; do
    LD_LIBRARY_PATH=$PWD/bx-$v BLAS_BATCHED_DEBUG=time timeout 60 $R/many_groups 24 217013 2> $R/many-groups-debug-$v.txt
    echo "== $v debug"; grep "device pass" $R/many-groups-debug-$v.txt | tail -4
  done
} 2>&1 | tee $R/many-groups.txt
t done
cd $OUT && tar czf r.tgz r && rm -rf r
