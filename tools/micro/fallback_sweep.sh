# Which tile configuration should take gemm orders 17..64 where cuBLAS does not pay (groups of
# fewer than 64 problems, one problem per group)? Before 2026-11-29 kTile32_2x2 did for all, at
# 1.9-2.8x cuBLAS's time for r64 n = 32/64 (H200, 2026-11-29). Needs a build with every
# configuration: tools/prebuilt.sh -B <build with -DBLAS_BATCHED_GEMM_ALL_CONFIGS=ON> -n allcfg;
# on the device: PREBUILT=.prebuilt/allcfg.tar.xz bash tools/gpu-check.sh none; bash tools/micro/fallback_sweep.sh
# Output: $OUT/fb/*.csv (strided kernel time per forced configuration against cuBLAS; uniform
# one-problem groups per configuration).
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=$BUILD/bench/blas_batched_bench; o=$OUT/fb; mkdir -p $o
# GemmConfig indices (src/cuda/gemm/gemm_tuning.hpp): 4 kTile8_2x2, 5 kTile16_2x2, 6 kTile16_4x4,
# 7 kTile32_4x4, 8 kTile32_2x2, 9 kTile32_4x2, 10 kTile64_4x4 (4-byte elements and less).
for p in r64 r32; do
  cfgs="4 5 6 7 8 9"; [ $p = r32 ] && cfgs="$cfgs 10"
  $b --routine gemm --prec $p --sizes 17,20,24,28,32,40,48,64 --device gpu --backend cublas-direct --reps 10 \
    --tag cublas --csv $o/strided-$p-cublas.csv > /dev/null 2>&1
  for c in $cfgs; do
    BLAS_BATCHED_GEMM_CONFIG=$c $b --routine gemm --prec $p --sizes 17,20,24,28,32,40,48,64 --device gpu \
      --backend native-strided --reps 10 --tag config$c --csv $o/strided-$p-config$c.csv > /dev/null 2>&1
    BLAS_BATCHED_GEMM_CONFIG=$c $b --routine gemm --prec $p --sizes 24,32,48 --batch 20000 --one-per-group \
      --device gpu --backend native --reps 10 --tag config$c --csv $o/one-$p-config$c.csv > /dev/null 2>&1
  done
done
# kernel_ms per size and configuration, cuBLAS last.
python3 - "$o" <<'EOF'
import csv, glob, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/strided-*.csv")):
    rows += list(csv.DictReader(open(f)))
for prec in ("r64", "r32"):
    table = {}
    for r in rows:
        if r["prec"] == prec:
            table.setdefault(r["tag"], {})[int(r["n"])] = float(r["kernel_ms"] or "nan")
    sizes = sorted({n for t in table.values() for n in t})
    print(prec, " ".join(f"{n:>7}" for n in sizes))
    for tag in sorted(table):
        print(f"{tag:>9}", " ".join(f"{table[tag].get(n, float('nan')):7.3f}" for n in sizes))
EOF
