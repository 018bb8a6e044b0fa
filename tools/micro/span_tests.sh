#!/usr/bin/env bash
# The info channel's tests (getrf, potrf) with code spans as built, of 8192 problems, and none
# (BLAS_BATCHED_CODE_SPAN), in shards at once; logs under $OUT. On the device machine, after
# tools/gpu-check.sh has unpacked a prebuilt: LD_LIBRARY_PATH=$BUILD bash tools/micro/span_tests.sh $BUILD
T=$1/conformance
GF='GpuGetrf/*.StridedEntryPoints:GpuGetrf/*.SingularProblems:GpuGetrf/*.NullPointer*:GpuGetrf/*.DevicePointerArrays:GpuGetrf/*.MoreThan65535Problems:GpuGetrf/*.HostAndDevice*:GpuGetrf/*.InverseInOneCall'
PF='GpuPotrf/*.StridedEntryPoint:GpuPotrf/*.NotPositiveDefinite:GpuPotrf/*.NullPointer*:GpuPotrf/*.DevicePointerArrays'
for e in default 8192 0; do
  v=$e; [ $e = default ] && v=
  for i in 0 1 2 3; do GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i BLAS_BATCHED_CODE_SPAN=$v timeout 280 $T/conformance_gpu_getrf --gtest_filter=$GF > $OUT/span-$e-getrf-$i.log 2>&1 & done
  for i in 0 1; do GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i BLAS_BATCHED_CODE_SPAN=$v timeout 280 $T/conformance_gpu_potrf_geqrf --gtest_filter=$PF > $OUT/span-$e-potrf-$i.log 2>&1 & done
  wait
  echo "span $e: $(cat $OUT/span-$e-*.log | grep -c '^\[       OK')" OK, "$(cat $OUT/span-$e-*.log | grep -c '^\[  FAILED  \] [A-Z]')" failed, "$(grep -L 'PASSED\|FAILED' $OUT/span-$e-*.log | wc -l)" unfinished
  grep -h '^\[  FAILED  \] [A-Z]\|Failure' $OUT/span-$e-*.log | head -5
done
