# The GPU side of a call of one-problem groups (100,000 groups, n uniform in 2..32), which the
# whole-call timings cannot show (the device span follows the host's pace): ncu's time per
# kernel summed over the profiled calls, and one kernel's sections and stall reasons.
# On the device, after PREBUILT=... bash tools/gpu-check.sh none (BUILD set):
#   bash tools/micro/one_problem_ncu.sh            P=r32 K='TileShape<float, .int.32, .int.4, .int.4>' ...
# K: a regex on the demangled name ("(int)" matched as .int.), the launch after the warm-up's
# first two is profiled. Output: $OUT/onencu/ (tar it: the device tool returns 8 files at most).
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=$BUILD/bench/blas_batched_bench; r=$OUT/onencu; mkdir -p $r
P=${P:-r64}; K=${K:-TileShape<double, .int.32, .int.2, .int.2>}
ARGS="--routine gemm --prec $P --variable-sizes 2:32 --batch 100000 --device gpu --backend native --reps 1"
# --reps 1 profiles three calls: the warm-up, then one timing-on and one timing-off call.
ncu --clock-control none --csv --metrics gpu__time_duration.sum -k regex:gemm $b $ARGS > $r/kernels-$P.csv 2> /dev/null
python3 - $r/kernels-$P.csv <<'PY' | tee $r/kernels-$P.txt
import collections, csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, rows = rows[0], rows[1:]
name, value = head.index("Kernel Name"), head.index("Metric Value")
total = collections.defaultdict(float)
for r in rows:
    total[r[name].split("(")[0]] += float(r[value].replace(",", "")) / 1e3 / 3
for k in sorted(total): print(f"{total[k]:9.1f} us a call  {k}")
print(f"{sum(total.values()):9.1f} us a call  all")
PY
ncu --kernel-name-base demangled --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section LaunchStats -k regex:"$K" -s 2 -c 1 $b $ARGS > $r/sections-$P.txt 2>&1
ncu --kernel-name-base demangled --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  -k regex:"$K" -s 2 -c 1 $b $ARGS > $r/stalls-$P.txt 2>&1
