#!/usr/bin/env bash
# Device job for the getri-rows24 experiment (s52, never run on a GPU). Build here first:
#   git checkout -b next/getri-rows24 main && git am tools/micro/experiments/getri-rows24.patch
#   ninja -C build && bash tools/prebuilt.sh -n g24 conformance_gpu_getrf
# then, from the device tool (carry .devdeps .prebuilt): bash tools/micro/experiments/getri-rows24.sh
# What it measures (one build, runtime switches):
#  - getri (strided) and the inverse in one call (device pointer arrays) with getri's rows of 24
#    (BLAS_BATCHED_LU_GETRI_NARROW_MORE=1) against rows of 32, cuBLAS beside; c64 is the control.
#  - getrf where only BLAS_BATCHED_LU_ROLLED_MIN=17 makes the kernel rolled (r16 22..25, r32
#    24..26, r64 25..26): the rolled rows of 24 / 32 against the unrolled kernel, to move lu_rolled_takes' ends.
#  - the bits (--digest) with and without, tests and sanitizers with the switch on. Note: in r64,
#    c32 and c16 the inverse's pair follows getri's choice, so its A/B moves getrf's rows too.
# Output: $OUT/r.tgz and the tables on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; (cd $OUT && tar czf r.tgz r); }  # packed at every section: a cut job keeps what it did
R=$OUT/r; mkdir -p $R; export BUILD=$PWD/build-g24
OUT=$R/unpack PREBUILT=.prebuilt/g24.tar.xz bash tools/gpu-check.sh none > /dev/null
export LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t "getri A/B"
OUT=$R VENDOR=1 VARIANTS="rows32 rows24:BLAS_BATCHED_LU_GETRI_NARROW_MORE=1 rows32b" \
  ROUTINE=getri PRECS="r64 r32 c32 c64 r16 c16" SIZES=17,18,20,22,24 timeout 100 bash tools/env_ab.sh
mv $R/env-ab-getri-*.txt $R/getri-ab.txt; mv $R/env-ab-getri-*.tgz $R/getri-ab.tgz
t "inverse A/B"
OUT=$R VENDOR=1 BACKEND=native-devptr VARIANTS="rows32 rows24:BLAS_BATCHED_LU_GETRI_NARROW_MORE=1 rows32b" \
  ROUTINE=getrf_getri PRECS="r64 c32 c16 c64" SIZES=17,20,24 timeout 80 bash tools/env_ab.sh
mv $R/env-ab-getrf_getri-*.txt $R/inverse-ab.txt; mv $R/env-ab-getrf_getri-*.tgz $R/inverse-ab.tgz
t "getrf: the rolled rule's ends"
OUT=$R VARIANTS="default rolled24:BLAS_BATCHED_LU_ROLLED_MIN=17 rolled32:BLAS_BATCHED_LU_ROLLED_MIN=17,BLAS_BATCHED_LU_ROLLED_NARROW=0 default2" \
  ROUTINE=getrf PRECS="r16 r32 r64" SIZES=21,22,23,24,25,26 timeout 80 bash tools/env_ab.sh
mv $R/env-ab-getrf-*.txt $R/getrf-ends-ab.txt; mv $R/env-ab-getrf-*.tgz $R/getrf-ends-ab.tgz
t "bits: getri (strided) and the inverse (device pointer arrays), rows of 24 against 32"
for spec in getri:native-strided:r64 getri:native-strided:r32 getri:native-strided:c32 getri:native-strided:r16 getri:native-strided:c16 \
            getrf_getri:native-devptr:r64 getrf_getri:native-devptr:c32 getrf_getri:native-devptr:c16; do
  IFS=: read routine backend p <<< "$spec"
  for v in 0 1; do
    BLAS_BATCHED_LU_GETRI_NARROW_MORE=$v timeout 30 $BUILD/bench/blas_batched_bench --routine $routine --prec $p --sizes 17,20,23,24 \
      --device gpu --backend $backend --reps 1 --gb 0.25 --digest --csv $R/digest-$routine-$p-$v.csv > $R/digest-$routine-$p-$v.log 2>&1 || echo "$spec $v: bench rc $?"
  done
  python3 - $R/digest-$routine-$p-0.csv $R/digest-$routine-$p-1.csv "$routine $p" <<'PY'
import csv, re, sys
d = [{r["n"]: re.search(r"digest (\w+)", r["notes"]).group(1) if "digest" in r["notes"] else "-" for r in csv.DictReader(open(f))} for f in sys.argv[1:3]]
for n in d[0]: print(sys.argv[3], n, d[0][n], d[1].get(n), "same" if d[0][n] == d[1].get(n) != "-" else "DIFFERENT")
PY
done
t "tests, switch on"
f="GpuGetrf/*.Random*:GpuGetrf/*.SingularProblems:GpuGetrf/*.GetriPivotOutOfRange:GpuGetrf/*.InverseInOneCall:GpuGetrf/*.NullPointer*:GpuGetrf/*.StridedEntryPoints-GpuGetrf/r128.*:GpuGetrf/c128.*"
BLAS_BATCHED_LU_GETRI_NARROW_MORE=1 OUT=$R/tests SHARD_SUITES=conformance_gpu_getrf SHARDS=16 SHARD_TIMEOUT=150 SHARD_FILTER="$f" bash tools/gpu-check.sh shards
# Both switches: the one-pass precisions' (r32, r16) inverse then runs the narrow pair.
BLAS_BATCHED_LU_ROLLED_MIN=17 BLAS_BATCHED_LU_GETRI_NARROW_MORE=1 OUT=$R/tests-both SHARD_SUITES=conformance_gpu_getrf SHARDS=4 SHARD_TIMEOUT=90 \
  SHARD_FILTER="GpuGetrf/r32.InverseInOneCall:GpuGetrf/r16.InverseInOneCall:GpuGetrf/c16.InverseInOneCall:GpuGetrf/r32.GetriPivotOutOfRange" bash tools/gpu-check.sh shards
BLAS_BATCHED_LU_ROLLED_MIN=17 OUT=$R/tests-rolled SHARD_SUITES=conformance_gpu_getrf SHARDS=8 SHARD_TIMEOUT=90 \
  SHARD_FILTER="GpuGetrf/r16.Random*:GpuGetrf/r32.Random*:GpuGetrf/r64.Random*:GpuGetrf/r32.SingularProblems" bash tools/gpu-check.sh shards
for tool in memcheck racecheck; do
  BLAS_BATCHED_LU_GETRI_NARROW_MORE=1 OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=4 SHARD_TIMEOUT=70 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/r64.RandomColMajor:GpuGetrf/c32.InverseInOneCall:GpuGetrf/r16.RandomRowMajor:GpuGetrf/c16.SingularProblems" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
