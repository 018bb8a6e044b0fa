#!/usr/bin/env bash
# A blocked factorization (R = potrf, default, or geqrf) with blocks of W1 columns against W2
# (BLAS_BATCHED_CHOL_BLOCK / BLAS_BATCHED_QR_BLOCK; default 32 against 16), strided (potrf: uplo
# Lower), beside the vendor in the same run: precisions P, orders S; logs in $OUT. From the
# device tool, after a build (tools/gpu-check.sh none):  R=geqrf P=r64 bash tools/block_width_ab.sh
b=${BUILD:-build-gpu}/bench/blas_batched_bench
r=${R:-potrf}
var=BLAS_BATCHED_CHOL_BLOCK; [ "$r" = geqrf ] && var=BLAS_BATCHED_QR_BLOCK
for p in ${P:-r64 c64}; do
  for w in ${W1:-32} ${W2:-16}; do
    env $var=$w $b --routine $r --prec $p --sizes ${S:-48,64,96,128,256,512} --device gpu --check --reps 5 \
      --backend native-strided,cublas-direct > $OUT/$r-width$w-$p.log 2>&1
    echo "== $r $p blocks of $w"; grep -E "^$r" $OUT/$r-width$w-$p.log | awk '{printf "%s %s %s ms %s%% x%s err %s\n", $3, $4, $7, $11, $14, $17}'
    grep -E 'check failed|error:' $OUT/$r-width$w-$p.log | head -3
  done
done
