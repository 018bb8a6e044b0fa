#!/usr/bin/env bash
# Device job (s55): the rolled getrf's row-major rows in 16-byte pieces, in an instance of their
# own launched only for row-major runs with ld on 16 bytes (B), against main (A: the rolled
# kernel element by element), and C (B with r64's row-major rows of 20 capped at 96 registers, not
# 80: B spills 76 bytes there); the orders the rolled kernel runs, both layouts (column-major and
# misaligned row-major: the same kernel in both, the controls), the bits, and the tests.
# Build here: A = main (bash tools/prebuilt.sh -n a conformance_gpu_getrf), B = main + the
# change (-n b), C (-n c); from the device tool (carry .devdeps .prebuilt/a.tar.xz .prebuilt/b.tar.xz
# .prebuilt/c.tar.xz; the -dev debs of .devdeps left out: 64 MiB):
#   bash tools/micro/experiments/rolled-pieces.sh           (PART=2: the tests of B and C only)
# Output: $OUT/r.tgz (packed after every section) and the tables on stdout.
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; (cd $OUT && tar czf r.tgz r); }
R=$OUT/r; mkdir -p $R
for v in a b c; do d=$PWD/bx-$v; [ -f .prebuilt/$v.tar.xz ] || continue; mkdir -p $d && tar -C $d -xJf .prebuilt/$v.tar.xz && ln -sf libblas_batched.so.0 $d/libblas_batched.so; done
if [ "${PART:-1}" = 1 ]; then
t "tests, A: RowMajorRowsOn16Bytes (s54's extension, first GPU run)"
BUILD=$PWD/bx-a OUT=$R/tests-a SHARD_SUITES=conformance_gpu_getrf SHARDS=6 SHARD_TIMEOUT=100 \
  SHARD_FILTER="GpuGetrf/*.RowMajorRowsOn16Bytes" bash tools/gpu-check.sh shards
bench="--routine getrf --device gpu --backend native-strided --reps 5 --check"
t "row-major, B against A (even orders: ld on 16 bytes where n * sizeof is; odd: the control)"
OUT=$R/rm VARIANTS=".prebuilt/a.tar.xz .prebuilt/b.tar.xz .prebuilt/c.tar.xz" PRECS="r64 r32 c32 r16 c16" \
  ARGS="$bench --sizes 18,20,21,22,24,28,32 --row-major" timeout 300 bash tools/micro/build_ab.sh
t "column-major (the same kernel in both)"
OUT=$R/cm VARIANTS=".prebuilt/a.tar.xz .prebuilt/b.tar.xz .prebuilt/c.tar.xz" PRECS="r64 r32 c32 r16 c16" \
  ARGS="$bench --sizes 18,20,24,28,32" timeout 100 bash tools/micro/build_ab.sh
t "bits"
for p in r64 r32 c32 r16 c16; do
  for layout in --row-major ""; do
    for v in a b c; do
      LD_LIBRARY_PATH=$PWD/bx-$v timeout 20 bx-$v/bench/blas_batched_bench --routine getrf --prec $p --sizes 17,18,20,23,24,28,32 $layout \
        --device gpu --backend native-strided --reps 1 --gb 0.1 --digest --csv $R/digest-$p${layout:+-rm}-$v.csv > /dev/null 2>&1 || echo "digest $p $v: rc $?"
    done
    for v in b c; do
    python3 tools/micro/digest_compare.py $R/digest-$p${layout:+-rm}-a.csv $R/digest-$p${layout:+-rm}-$v.csv "$p${layout:+-rm} $v"
    done
  done
done
t done; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0
fi
# PART=2: the tests of the change
t "tests, C (r64's row-major rows of 20 alone differ from B)"
BUILD=$PWD/bx-c OUT=$R/tests-c SHARD_SUITES=conformance_gpu_getrf SHARDS=4 SHARD_TIMEOUT=100 \
  SHARD_FILTER="GpuGetrf/r64.*RowMajor*" bash tools/gpu-check.sh shards
t "tests, B"
BUILD=$PWD/bx-b OUT=$R/tests-b SHARD_SUITES=conformance_gpu_getrf SHARDS=12 SHARD_TIMEOUT=120 \
  SHARD_FILTER="GpuGetrf/*.*RowMajor*:GpuGetrf/*.Padded*:GpuGetrf/*.NullPointer*:GpuGetrf/*.DevicePointerArrays:GpuGetrf/*.Random*:GpuGetrf/*.Singular*:GpuGetrf/*.InverseInOneCall-GpuGetrf/r128.*:GpuGetrf/c128.*" \
  bash tools/gpu-check.sh shards
for tool in memcheck racecheck; do
  t "$tool (B)"
  BUILD=$PWD/bx-b OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=3 SHARD_TIMEOUT=60 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/r64.RowMajorRowsOn16Bytes:GpuGetrf/c32.RandomRowMajor:GpuGetrf/r16.RowMajorRowsOn16Bytes" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
