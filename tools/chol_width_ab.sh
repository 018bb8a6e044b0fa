#!/usr/bin/env bash
# potrf's blocked algorithm with blocks of 32 columns against 16 (BLAS_BATCHED_CHOL_BLOCK=16),
# strided, uplo Lower, beside cuSOLVER in the same run: precisions P, orders S; logs in $OUT.
# From the device tool, after a build (tools/gpu-check.sh none).
b=${BUILD:-build-gpu}/bench/blas_batched_bench
for p in ${P:-r64 c64}; do
  for w in 32 16; do
    BLAS_BATCHED_CHOL_BLOCK=$w $b --routine potrf --prec $p --sizes ${S:-48,64,96,128,256,512} --device gpu --check --reps 5 \
      --backend native-strided,cublas-direct > $OUT/potrf-width$w-$p.log 2>&1
    echo "== $p blocks of $w"; grep -E "^potrf" $OUT/potrf-width$w-$p.log | awk '{printf "%s %s %s ms %s%% x%s err %s\n", $3, $4, $7, $11, $14, $17}'
  done
done
