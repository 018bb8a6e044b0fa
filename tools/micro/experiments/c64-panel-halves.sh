#!/usr/bin/env bash
# Device job of the c64-panel-halves experiment (prepared s51; run s52 and landed as the default, cb2deaa: the patch is commit 8a08f07). It was built here first:
#   git checkout -b next/c64-panel-halves main && git am tools/micro/experiments/c64-panel-halves.patch   (src and conformance only)
#   ninja -C build && bash tools/prebuilt.sh -n halves conformance_gpu_getrf
# then, from the device tool (carry .devdeps .prebuilt; the switch is off by default, so one
# build runs both sides): bash tools/micro/experiments/c64-panel-halves.sh
# Output: $OUT/r.tgz (one archive: the device returns only a few files) and the tables on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; }
R=$OUT/r; mkdir -p $R; export BUILD=$PWD/build-halves
OUT=$R/unpack PREBUILT=.prebuilt/halves.tar.xz bash tools/gpu-check.sh none > /dev/null
filter="GpuGetrf/c64.Random*:GpuGetrf/c64.Dominant*:GpuGetrf/c64.SingularProblems:GpuGetrf/c64.NonFinite*:GpuGetrf/c64.NullPointer*"
filter="$filter:GpuGetrf/c64.DevicePointerArrays:GpuGetrf/c64.InverseInOneCall:GpuGetrf/c64.PanelAtSharedLimit:GpuGetrf/c64.StridedEntryPoints"
t "tests, halves on (staged)"
BLAS_BATCHED_LU_PANEL_HALVES=1 OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=8 SHARD_TIMEOUT=200 SHARD_FILTER="$filter" bash tools/gpu-check.sh shards
t "tests, halves on, permutation in registers"
BLAS_BATCHED_LU_PANEL_HALVES=1 BLAS_BATCHED_LU_PANEL_STAGED_MAX_OUTSIDE=1 OUT=$R/tests-reg SHARD_SUITES=conformance_gpu_getrf SHARDS=6 SHARD_TIMEOUT=120 \
  SHARD_FILTER="GpuGetrf/c64.Random*:GpuGetrf/c64.SingularProblems:GpuGetrf/c64.NullPointer*" bash tools/gpu-check.sh shards
t "tests, halves on, grid loops (7 blocks)"
BLAS_BATCHED_LU_PANEL_HALVES=1 BLAS_BATCHED_GRID_BLOCKS=7 OUT=$R/tests-grid SHARD_SUITES=conformance_gpu_getrf SHARDS=3 SHARD_TIMEOUT=120 \
  SHARD_FILTER="GpuGetrf/c64.RandomColMajor:GpuGetrf/c64.RandomRowMajor:GpuGetrf/c64.SingularProblems" bash tools/gpu-check.sh shards
t "bits: halves against the default (the bench's --digest; 49, 95, 113 give odd panel widths)"
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for lay in col row; do
  ba=; [ $lay = row ] && ba=--row-major
  for v in 0 1; do
    BLAS_BATCHED_LU_PANEL_HALVES=$v timeout 120 $BUILD/bench/blas_batched_bench --routine getrf --prec c64 --sizes 49,65,80,95,96,113,128 \
      --device gpu --backend native-strided --reps 1 --gb 0.25 --digest $ba --csv $R/digest-$lay-$v.csv > $R/digest-$lay-$v.log 2>&1 || echo "$lay $v: bench rc $?"
  done
  python3 - $R/digest-$lay-0.csv $R/digest-$lay-1.csv $lay <<'PY'
import csv, re, sys
d = [{r["n"]: re.search(r"digest (\w+)", r["notes"]).group(1) if "digest" in r["notes"] else "-" for r in csv.DictReader(open(f))} for f in sys.argv[1:3]]
for n in d[0]: print(sys.argv[3], n, d[0][n], d[1].get(n), "same" if d[0][n] == d[1].get(n) != "-" else "DIFFERENT")
PY
done
for lay in col row; do
  t "env A/B $lay"
  ba=; [ $lay = row ] && ba=--row-major
  OUT=$R VENDOR=1 BENCH_ARGS=$ba VARIANTS="main halves:BLAS_BATCHED_LU_PANEL_HALVES=1 main2" \
    ROUTINE=getrf PRECS=c64 SIZES=48,64,65,80,88,96,112,128,160,192,256 timeout 200 bash tools/env_ab.sh
  mv $R/env-ab-getrf-*.txt $R/halves-ab-$lay.txt; mv $R/env-ab-getrf-*.tgz $R/halves-ab-$lay.tgz
done
t "memcheck / racecheck (reduced; PanelAtSharedLimit left out: racecheck does not finish it in 200 s)"
for tool in memcheck racecheck; do
  BLAS_BATCHED_LU_PANEL_HALVES=1 OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=6 SHARD_TIMEOUT=120 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/c64.Random*:GpuGetrf/c64.SingularProblems:GpuGetrf/c64.NullPointer*" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
