#!/usr/bin/env bash
# Device job (s56 call 7): the pieces' instance chosen from run flags ANDed while the runs are planned
# (kFactorRowsOn16Bytes, no pass over the runs before a launch). Tests first (the getrf suite
# without the slow PastTheSolverCrossover, memcheck on RowMajorRowsOn16Bytes), then
# tools/micro/many_groups.cpp under A and E: 16 groups of an order, and one-problem groups (the
# whole call, where a pass over every run would show).
# Build here: A (bash tools/prebuilt.sh -n a conformance_gpu_getrf, from 7979966) and E (-n e);
# from the device tool (carry .devdeps .prebuilt; the -dev debs of .devdeps left out):
#   bash tools/micro/experiments/run-flags.sh
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; }
R=$OUT/r; mkdir -p $R
for v in a e; do d=$PWD/bx-$v; mkdir -p $d && tar -C $d -xJf .prebuilt/$v.tar.xz && ln -sf libblas_batched.so.0 $d/libblas_batched.so; done
t "tests, e"
BUILD=$PWD/bx-e OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=16 SHARD_TIMEOUT=150 \
  SHARD_FILTER="*-*PastTheSolverCrossover*" bash tools/gpu-check.sh shards
t "memcheck, e"
BUILD=$PWD/bx-e OUT=$R/memcheck SHARD_SUITES=conformance_gpu_getrf SHARDS=4 SHARD_TIMEOUT=60 SHARD_TOOL=memcheck SHARD_REDUCED=1 \
  SHARD_FILTER="GpuGetrf/r64.RowMajorRowsOn16Bytes:GpuGetrf/c32.RowMajorRowsOn16Bytes:GpuGetrf/r16.RowMajorRowsOn16Bytes:GpuGetrf/c16.RowMajorRowsOn16Bytes" \
  bash tools/gpu-check.sh shards
t "many groups"
g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include tools/micro/many_groups.cpp -o $R/many_groups \
  -Lbx-e -lblas_batched -L/usr/local/cuda/lib64 -lcudart || exit 1
for v in a e a; do
  echo "== $v: $(tr '\n' ' ' < bx-$v/REVISION)"
  LD_LIBRARY_PATH=$PWD/bx-$v timeout 60 $R/many_groups 20,24 1,16
  # 217013 groups: r64 24 one problem each, r32 24 two (chunks of 16384 groups, a table each).
  LD_LIBRARY_PATH=$PWD/bx-$v timeout 60 $R/many_groups 24 217013
done 2>&1 | tee $R/many-groups.txt
t done
cd $OUT && tar czf r.tgz r && rm -rf r
