# Builds against each other on one bench command, A B ... A in one run: kernel ms and the
# whole call, per precision and order. Variants: archives from tools/prebuilt.sh in VARIANTS
# (tags A, B, C ...; A runs again last), the bench's arguments in ARGS (without --prec),
# precisions in PRECS. Output: the table, and $OUT/build-ab.tgz with the bench's logs and CSVs.
#   VARIANTS=".prebuilt/a.tar.xz .prebuilt/b.tar.xz" PRECS="r64 r32" \
#   ARGS="--routine getrf --sizes 8,16,32 --device gpu --backend native-strided --reps 5 --check" bash tools/micro/build_ab.sh
source .devdeps/device-env.sh > /dev/null 2>&1
r=$OUT/build-ab; mkdir -p $r
tags=(A B C D E F); i=0; dirs=()
for arch in ${VARIANTS:?}; do
  d=$PWD/bx-$(basename $arch .tar.xz)
  [ -f $d/REVISION ] || { mkdir -p $d && tar -C $d -xJf $arch && ln -sf libblas_batched.so.0 $d/libblas_batched.so; }
  dirs+=($d); echo "${tags[$i]}: $arch $(tr '\n' ' ' < $d/REVISION)" | tee -a $r/variants.txt
  i=$((i + 1))
done
order=($(seq 0 $((${#dirs[@]} - 1))) 0)
for k in "${!order[@]}"; do
  j=${order[$k]}; t=${tags[$j]}$([ $k -ge ${#dirs[@]} ] && echo 2)
  for p in ${PRECS:?}; do
    LD_LIBRARY_PATH=${dirs[$j]} ${dirs[$j]}/bench/blas_batched_bench $ARGS --prec $p --csv $r/$t-$p.csv > $r/$t-$p.log 2>&1 ||
      echo "$t $p: the bench failed"
    grep -E "check failed|returned BLAS_BATCHED_ERR" $r/$t-$p.log | head -3
  done
done
python3 - $r <<'PY'
import csv, glob, os, sys, collections
rows, names = collections.defaultdict(dict), []
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    t, p = os.path.basename(f)[:-4].split("-", 1)
    names += [t] if t not in names else []
    for r in csv.DictReader(open(f)):
        rows[(r["routine"], p, int(r["n"]), r["backend"])][t] = f"{float(r['kernel_ms'] or 'nan'):.3f}/{float(r['time_ms']):.3f}({r['kernel_pct_bw']})"
print("routine prec n backend " + " ".join(names) + "   (kernel ms / call ms (kernel % of copy bw))")
for k in sorted(rows): print(*k, *(rows[k].get(x, "-") for x in names))
PY
cd $OUT && tar czf build-ab.tgz build-ab && rm -rf build-ab
