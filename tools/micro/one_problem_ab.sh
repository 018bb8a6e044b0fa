# The call of one-problem groups (100,000 groups, n uniform in 2..32, r64 and r32) under
# several builds and settings in one run: whole call (bench, A B ... A), the host's phases
# (BLAS_BATCHED_DEBUG=time, last of four calls) and the GPU's time per kernel (ncu, summed).
# Variants: "TAG:ARCHIVE[:ENV=VALUE]" words in VARIANTS, archives from tools/prebuilt.sh, e.g.
#   VARIANTS=".prebuilt/main.tar.xz .prebuilt/multi.tar.xz:BLAS_BATCHED_MERGED_BLOCKS_PER_SM=0 .prebuilt/multi.tar.xz"
# (tags A, B, C, ... in that order). Output: $OUT/ab1.tgz.
source .devdeps/device-env.sh > /dev/null 2>&1
r=$OUT/ab1; mkdir -p $r
tags=(A B C D E F); i=0; list=()
for v in ${VARIANTS:?}; do
  arch=${v%%:*}; env=${v#*:}; [ "$env" = "$v" ] && env=
  d=$PWD/bx-$(basename $arch .tar.xz)
  [ -f $d/REVISION ] || { mkdir -p $d && tar -C $d -xJf $arch && ln -sf libblas_batched.so.0 $d/libblas_batched.so; }
  list+=("${tags[$i]}|$d|$env"); echo "${tags[$i]}: $arch ${env:-(no setting)} $(tr '\n' ' ' < $d/REVISION)" >> $r/variants.txt
  i=$((i + 1))
done
ARGS="--routine gemm --variable-sizes 2:32 --batch 100000 --device gpu --backend native"
run() {  # run TAG DIR ENV
  for p in r64 r32; do
    env LD_LIBRARY_PATH=$2 $3 $2/bench/blas_batched_bench $ARGS --prec $p --reps 20 2>&1 | grep -E "^gemm" | sed "s/^/$1 /"
  done
}
{ for v in "${list[@]}"; do IFS='|' read t d e <<< "$v"; run $t $d "$e"; done
  IFS='|' read t d e <<< "${list[0]}"; run $t $d "$e"; } > $r/calls.txt 2>&1
for v in "${list[@]}"; do
  IFS='|' read t d e <<< "$v"
  env LD_LIBRARY_PATH=$d BLAS_BATCHED_DEBUG=time $e $d/bench/blas_batched_bench $ARGS --prec r64 --reps 4 2>&1 \
    | grep -E "group checks|device pass|^blas_batched: call " | tail -3 | sed "s/^/$t /" >> $r/phases.txt
  for p in r64 r32; do
    env LD_LIBRARY_PATH=$d $e ncu --clock-control none --csv --metrics gpu__time_duration.sum -k regex:gemm \
      $d/bench/blas_batched_bench $ARGS --prec $p --reps 1 > $r/ncu-$t-$p.csv 2> /dev/null
    python3 - $r/ncu-$t-$p.csv $t $p <<'PY' >> $r/kernels.txt
import collections, csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: sys.exit(print(sys.argv[2], sys.argv[3], "no ncu rows"))
head, rows = rows[0], rows[1:]
name, value = head.index("Kernel Name"), head.index("Metric Value")
total = collections.defaultdict(float); launches = collections.Counter()
for r in rows:
    k = r[name].split("(")[0]; total[k] += float(r[value].replace(",", "")) / 1e3 / 3; launches[k] += 1
print(sys.argv[2], sys.argv[3], f"{sum(total.values()):.1f} us of kernels a call, {sum(launches.values()) / 3:.0f} launches a call")
for k in sorted(total): print(f"   {total[k]:8.1f} us {launches[k] / 3:4.0f} launches  {k}")
PY
  done
done
cat $r/variants.txt $r/calls.txt $r/phases.txt $r/kernels.txt | cut -c1-200
cd $OUT && tar czf ab1.tgz ab1 && rm -rf ab1
