#!/usr/bin/env bash
# Device job for the short-more experiment (s53, never run on a GPU): getrf's rolled rows of 20 at
# 17..20 in r64, r32, c32, r16 and c16 (c64 has them), taken under BLAS_BATCHED_LU_ROLLED_SHORT_MORE=1;
# register caps r64 80 (24 B spilled), r32 / r16 80, c32 / c16 96 (no spill): 24, 24 and 20 warps an SM.
# Build here first:
#   git checkout -B next/short-more main && git am tools/micro/experiments/short-more.patch
#   ninja -C build && bash tools/prebuilt.sh -n short conformance_gpu_getrf && git checkout main
# (.prebuilt/short.tar.xz from s53 is that build, 4e22af2, if this checkout survives), then from
# main, with the device tool (carry .devdeps .prebuilt/short.tar.xz): bash tools/micro/experiments/short-more.sh
# (about 3-4 min; the limits sum to 580 s).
# Output: $OUT/r.tgz (packed after every section) and the tables on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; (cd $OUT && tar czf r.tgz r); }
R=$OUT/r; mkdir -p $R; export BUILD=$PWD/build-short
OUT=$R/unpack PREBUILT=.prebuilt/short.tar.xz bash tools/gpu-check.sh none > /dev/null
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t "getrf A/B, column-major"
OUT=$R VENDOR=1 VARIANTS="rows24 rows20:BLAS_BATCHED_LU_ROLLED_SHORT_MORE=1 rows24b" \
  ROUTINE=getrf PRECS="r64 r32 c32 r16 c16" SIZES=17,18,19,20,21 timeout 120 bash tools/env_ab.sh
mv $R/env-ab-getrf-*.txt $R/short-ab.txt; mv $R/env-ab-getrf-*.tgz $R/short-ab.tgz
t "inverse A/B (r64, c32, c16 run the pair)"
OUT=$R BACKEND=native-devptr VARIANTS="rows24 rows20:BLAS_BATCHED_LU_ROLLED_SHORT_MORE=1 rows24b" \
  ROUTINE=getrf_getri PRECS="r64 c32 c16" SIZES=17,20 timeout 60 bash tools/env_ab.sh
mv $R/env-ab-getrf_getri-*.txt $R/inverse-ab.txt; mv $R/env-ab-getrf_getri-*.tgz $R/inverse-ab.tgz
t "bits: getrf (both layouts) and the inverse's pair, rows of 20 against 24"
for spec in getrf:native-strided:r64: getrf:native-strided:r32: getrf:native-strided:c32: getrf:native-strided:r16: getrf:native-strided:c16: \
            getrf:native-strided:r64:--row-major getrf:native-strided:c32:--row-major \
            getrf_getri:native-devptr:r64: getrf_getri:native-devptr:c32: getrf_getri:native-devptr:c16:; do
  IFS=: read routine backend p layout <<< "$spec"
  tag=$routine-$p${layout:+-rm}
  for v in 0 1; do
    BLAS_BATCHED_LU_ROLLED_SHORT_MORE=$v timeout 10 $BUILD/bench/blas_batched_bench --routine $routine --prec $p --sizes 17,19,20 $layout \
      --device gpu --backend $backend --reps 1 --gb 0.1 --digest --csv $R/digest-$tag-$v.csv > $R/digest-$tag-$v.log 2>&1 || echo "$tag $v: bench rc $?"
  done
  python3 - $R/digest-$tag-0.csv $R/digest-$tag-1.csv "$tag" <<'PY'
import csv, re, sys
d = [{r["n"]: re.search(r"digest (\w+)", r["notes"]).group(1) if "digest" in r["notes"] else "-" for r in csv.DictReader(open(f))} for f in sys.argv[1:3]]
for n in d[0]: print(sys.argv[3], n, d[0][n], d[1].get(n), "same" if d[0][n] == d[1].get(n) != "-" else "DIFFERENT")
PY
done
t "tests, switch on"
BLAS_BATCHED_LU_ROLLED_SHORT_MORE=1 OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=12 SHARD_TIMEOUT=100 \
  SHARD_FILTER="GpuGetrf/*.Random*:GpuGetrf/*.NullPointer*:GpuGetrf/*.StridedEntryPoints:GpuGetrf/*.InverseInOneCall-GpuGetrf/r128.*:GpuGetrf/c128.*:GpuGetrf/c64.*" \
  bash tools/gpu-check.sh shards
for tool in memcheck racecheck; do
  t $tool
  BLAS_BATCHED_LU_ROLLED_SHORT_MORE=1 OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=3 SHARD_TIMEOUT=60 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/r64.RandomColMajor:GpuGetrf/c32.NullPointerSkipsOnlyItsProblem:GpuGetrf/r16.StridedEntryPoints" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
