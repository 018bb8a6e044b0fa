#!/usr/bin/env bash
# getrf on the GPU, blocked (from order BMIN, default 33) against the unblocked kernel
# (BLAS_BATCHED_LU_BLOCKED_MIN=100000), each beside cuBLAS getrfBatched in the same run: the
# strided entry point, precisions P, orders S; CSVs and logs in $OUT. From the device tool,
# after a build (tools/gpu-check.sh none):  P=r64 S=64,256 bash tools/lu_ab.sh
b=${BUILD:-build-gpu}/bench/blas_batched_bench
for p in ${P:-r64 r32 c64 c32}; do
  for mode in blocked unblocked; do
    env="BLAS_BATCHED_LU_BLOCKED_MIN=${BMIN:-33}"; [ $mode = unblocked ] && env="BLAS_BATCHED_LU_BLOCKED_MIN=100000"
    env $env $b --routine getrf --prec $p --sizes ${S:-40,48,64,96,128,192,256,512} --device gpu --check --reps 5 \
      --backend native-strided,cublas-direct --csv $OUT/lu-ab-$p-$mode.csv > $OUT/lu-ab-$p-$mode.log 2>&1
    echo "== $p $mode"; grep -E '^getrf' $OUT/lu-ab-$p-$mode.log | awk '{printf "%s %s %s ms %s%% x%s err %s\n", $3, $4, $7, $11, $14, $17}'
    grep -E 'check failed|error' $OUT/lu-ab-$p-$mode.log | head -3
  done
done
