#!/usr/bin/env bash
# Device job (s57 calls 2-3): issue 9's closing table on one prebuilt build (E): getrf and getri
# against cuBLAS getrfBatched / getriBatched (with the copy back), and the inverse in one call
# against two calls and cuBLAS, every device precision, about 1 GB a call, --check on every row.
# PART=small: orders 4..32 (the bandwidth targets); PART=large: 33..512 (the ratio targets) and
# the inverse. Rows: native (the group API's whole call, host pointer arrays: pct_floor),
# native-strided (kernel ms, kernel % of copy bandwidth), cublas-direct.
# Build here: bash tools/prebuilt.sh -n e conformance_gpu_getrf (BUILD_NAME=e, the default)
# From the device tool (carry .devdeps .prebuilt): PART=small bash tools/micro/experiments/closing-bench.sh
# (TESTS=<googletest filter>: those tests of the archive's conformance_gpu_getrf first, 8 shards)
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; }
v=${BUILD_NAME:-e}
d=$PWD/bx-$v; mkdir -p $d && tar -C $d -xJf .prebuilt/$v.tar.xz && ln -sf libblas_batched.so.0 $d/libblas_batched.so
export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "$v: $(tr '\n' ' ' < $d/REVISION)"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
bench=$d/bench/blas_batched_bench
R=$OUT/r; mkdir -p $R
if [ -n "${TESTS:-}" ]; then  # a googletest filter of conformance_gpu_getrf first, in 8 shards
  t "tests $TESTS"
  BUILD=$d OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=8 SHARD_TIMEOUT=200 SHARD_FILTER="$TESTS" bash tools/gpu-check.sh shards
fi
row() { awk '/^(getrf|getri|getrf_getri) +[a-z0-9]+ +[a-z-]+ +[0-9]/ {print $1, $2, $3, $4, $12, $14, $16, $17}'; }
case ${PART:-small} in
  small)
    for p in r64 r32 c64 c32 r16 c16; do
      t "getrf, getri $p 4..32"
      $bench --routine getrf,getri --prec $p --sizes ${SIZES:-4,8,12,16,20,24,28,32} --device gpu --check --reps 5 \
        --backend native,native-strided,cublas-direct --csv $R/lu-small-$p-$gpu-s57.csv 2>&1 | tee -a $R/small.log | row
    done ;;
  large)
    for p in r64 r32 c64 c32 r16 c16; do
      t "getrf, getri $p 33..512"
      $bench --routine getrf,getri --prec $p --sizes ${SIZES:-48,64,96,128,256,512} --device gpu --check --reps 5 \
        --backend native-strided,cublas-direct --csv $R/lu-large-$p-$gpu-s57.csv 2>&1 | tee -a $R/large.log | row
    done
    for p in r64 r32 c64 c32 r16 c16; do
      t "inverse $p"
      $bench --routine getrf_getri --prec $p --sizes ${INVSIZES:-4,8,16,24,32,64,128} --device gpu --check --reps 5 \
        --backend native,native-devptr,cublas-direct --csv $R/inv-$p-$gpu-s57.csv 2>&1 | tee -a $R/inv.log | row
    done ;;
esac
grep -E "check failed|^blas_batched_bench:" $R/*.log | head
t done
cd $OUT && tar czf r.tgz r && rm -rf r
