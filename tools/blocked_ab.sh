#!/usr/bin/env bash
# A blocked factorization on the GPU (R = getrf, default, potrf or geqrf), blocked (from order
# BMIN) against the one-block-per-problem kernels (the crossover moved to 100000), each beside the
# vendor (cuBLAS getrfBatched, cuSOLVER potrfBatched, cuBLAS geqrfBatched) in the same run: the strided entry point,
# precisions P, orders S; CSVs and logs in $OUT. From the device tool, after a build
# (tools/gpu-check.sh none):  R=potrf P=r64 S=64,256 bash tools/blocked_ab.sh
b=${BUILD:-build-gpu}/bench/blas_batched_bench
r=${R:-getrf}
var=BLAS_BATCHED_LU_BLOCKED_MIN; [ "$r" = potrf ] && var=BLAS_BATCHED_CHOL_BLOCKED_MIN
[ "$r" = geqrf ] && var=BLAS_BATCHED_QR_BLOCKED_MIN
for p in ${P:-r64 r32 c64 c32}; do
  for mode in blocked unblocked; do
    env="$var=${BMIN:-33}"; [ $mode = unblocked ] && env="$var=100000"
    env $env $b --routine $r --prec $p --sizes ${S:-40,48,64,96,128,192,256,512} --device gpu --check --reps 5 \
      --backend native-strided,cublas-direct --csv $OUT/$r-ab-$p-$mode.csv > $OUT/$r-ab-$p-$mode.log 2>&1
    echo "== $r $p $mode"; grep -E "^$r" $OUT/$r-ab-$p-$mode.log | awk '{printf "%s %s %s ms %s%% x%s err %s\n", $3, $4, $7, $11, $14, $17}'
    grep -E 'check failed|error' $OUT/$r-ab-$p-$mode.log | head -3
  done
done
