#!/usr/bin/env bash
# Device job (s54): row-major getrf at n <= 32 with rows moved in 16-byte pieces (B) against the
# element-sized row accesses (A, main with the rows of 20 landed), both layouts, the bits of both,
# and the tests of A's landed change (every precision's rows of 20) and of B.
# Build here: A = main (bash tools/prebuilt.sh -n a conformance_gpu_getrf), B = main + the
# pieces (-n b); from the device tool (carry .devdeps .prebuilt/a.tar.xz .prebuilt/b.tar.xz):
#   bash tools/micro/experiments/row-pieces.sh
# Output: $OUT/r.tgz (packed after every section) and the tables on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; (cd $OUT && tar czf r.tgz r); }
R=$OUT/r; mkdir -p $R
B=${B:-b}  # the pieces' archive: .prebuilt/$B.tar.xz (call 4: c, the pieces worked out where used)
bench="--routine getrf --device gpu --backend native-strided --reps 5 --check"
t "row-major, pieces (B) against elements (A)"
OUT=$R/rm VARIANTS=".prebuilt/a.tar.xz .prebuilt/$B.tar.xz" PRECS="r64 r32 c32 r16 c16 c64" \
  ARGS="$bench --sizes 4,8,12,16,17,20,24,28,32 --row-major" timeout 200 bash tools/micro/build_ab.sh
t "column-major (pieces never apply: the same kernels' other path)"
OUT=$R/cm VARIANTS=".prebuilt/a.tar.xz .prebuilt/$B.tar.xz" PRECS="r64 r32 c32 r16 c16 c64" \
  ARGS="$bench --sizes 8,16,17,20,24,32" timeout 60 bash tools/micro/build_ab.sh
t "bits"
for p in r64 r32 c32 r16 c16 c64; do
  for layout in --row-major ""; do
    for v in a $B; do
      LD_LIBRARY_PATH=$PWD/bx-$v timeout 20 bx-$v/bench/blas_batched_bench --routine getrf --prec $p --sizes 5,8,16,17,20,23,32 $layout \
        --device gpu --backend native-strided --reps 1 --gb 0.1 --digest --csv $R/digest-$p${layout:+-rm}-$v.csv > /dev/null 2>&1 || echo "digest $p $v: rc $?"
    done
    python3 tools/micro/digest_compare.py $R/digest-$p${layout:+-rm}-a.csv $R/digest-$p${layout:+-rm}-$B.csv "$p${layout:+-rm}"
  done
done
[ -z "${SKIP_A_TESTS:-}" ] && {
t "tests, A (rows of 20 landed): the getrf suite's short-row filters"
export BUILD=$PWD/bx-a
OUT=$R/tests-a SHARD_SUITES=conformance_gpu_getrf SHARDS=12 SHARD_TIMEOUT=100 \
  SHARD_FILTER="GpuGetrf/*.Random*:GpuGetrf/*.NullPointer*:GpuGetrf/*.StridedEntryPoints:GpuGetrf/*.InverseInOneCall:GpuGetrf/*.Padded*:GpuGetrf/*.Singular*-GpuGetrf/r128.*:GpuGetrf/c128.*" \
  bash tools/gpu-check.sh shards
}
t "tests, B (pieces)"
export BUILD=$PWD/bx-$B
OUT=$R/tests-b SHARD_SUITES=conformance_gpu_getrf SHARDS=12 SHARD_TIMEOUT=100 \
  SHARD_FILTER="GpuGetrf/*.RandomRowMajor*:GpuGetrf/*.*RowMajor*:GpuGetrf/*.Padded*:GpuGetrf/*.NullPointer*:GpuGetrf/*.DevicePointerArrays-GpuGetrf/r128.*:GpuGetrf/c128.*" \
  bash tools/gpu-check.sh shards
for tool in memcheck racecheck; do
  t "$tool (B)"
  OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=3 SHARD_TIMEOUT=60 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/r64.RandomRowMajor:GpuGetrf/c32.RandomRowMajor:GpuGetrf/r16.RandomRowMajor:GpuGetrf/c16.NullPointerSkipsOnlyItsProblem" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
