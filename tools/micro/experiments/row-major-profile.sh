#!/usr/bin/env bash
# Device job (s54): why row-major getrf at n <= 32 is slower than column-major on the same bytes
# (c64 16: 0.83 against 0.57 ms; c64 17..24 row-major under cuBLAS). ncu's memory, occupancy and
# stall sections on one launch of each (kernel, layout), and the SASS lines with the most stall
# samples, row-major against column-major. Build here, then pack: bash tools/prebuilt.sh -n a;
# from the device tool (carry .devdeps .prebuilt/a.tar.xz): bash tools/micro/experiments/row-major-profile.sh
# Output: $OUT/r.tgz (packed after every case) and a metric table on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
R=$OUT/r; mkdir -p $R; export BUILD=$PWD/build-a
OUT=$R/unpack PREBUILT=${PREBUILT:-.prebuilt/a.tar.xz} bash tools/gpu-check.sh none > /dev/null
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_sector_hit_rate.pct,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,\
smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
for spec in c64:16:getrf_register c64:20:getrf_register_rolled c64:24:getrf_register_rolled r64:20:getrf_register_rolled c32:20:getrf_register_rolled; do
  IFS=: read p n k <<< "$spec"
  for layout in col row; do
    args=; [ $layout = row ] && args=--row-major
    tag=$p-$n-$layout
    timeout 90 ncu --metrics $metrics -k regex:"$k" -c 1 -f -o $R/m-$tag $BUILD/bench/blas_batched_bench --routine getrf --prec $p \
      --sizes $n $args --backend native-strided --device gpu --reps 1 --gb 0.5 > $R/m-$tag.log 2>&1 || echo "$tag: ncu rc $?"
    ncu -i $R/m-$tag.ncu-rep --page raw --csv > $R/m-$tag.csv 2>&1
  done
  (cd $OUT && tar czf r.tgz r)
done
python3 - $R <<'PY'
import csv, glob, os, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/m-*.csv")):
    r = list(csv.reader(open(f)))
    try:
        h = next(i for i, x in enumerate(r) if "Kernel Name" in x)
    except StopIteration:
        print(os.path.basename(f), "no data"); continue
    names, vals = r[h], r[h + 2] if len(r) > h + 2 else []
    rows[os.path.basename(f)[2:-4]] = dict(zip(names, vals))
keys = sorted({k for d in rows.values() for k in d if "__" in k})
for tag, d in rows.items():
    print("==", tag, d.get("Kernel Name", "")[:60])
    for k in keys: print(f"   {k:75s} {d.get(k, '')}")
PY
# Where the warps wait, per SASS line: c64 20 (rolled) in both layouts, c64 16 (unrolled) row-major.
for spec in getrf_register_rolled:20: getrf_register_rolled:20:--row-major getrf_register:16:--row-major; do
  IFS=: read k n args <<< "$spec"
  OUT=$R/src-$n${args:+-rm} KERNEL="$k" ROUTINE=getrf PREC=c64 N=$n SRC_ARGS="$args --gb 0.5" timeout 120 bash tools/gpu-check.sh srcprofile > $R/src-$n${args:+-rm}.txt 2>&1
  (cd $OUT && tar czf r.tgz r)
done
cat $R/src-*.txt | head -100
cd $OUT && tar czf r.tgz --exclude='*.ncu-rep' r && rm -rf r
