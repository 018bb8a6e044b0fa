#!/usr/bin/env bash
# Device job (s55): getri_register's row-major rows in 16-byte pieces, the helpers shared with
# getrf's, against A (main before the rolled getrf's pieces instance and this): getri and the
# inverse in row-major (pieces) and column-major (the control), getrf in row-major at the
# unrolled orders (the refactor: the same code), the bits; then tests and sanitizers.
# Call 2 ran D (the pieces in the getri instance both layouts share: column-major lost 30-100 %);
# call 3 runs E (a row-major instance of its own, V=e). A's bench has no row-major getri: A runs
# with the new one (the same API).
# s56 re-ran it (s55's result files were lost with that session) in three calls: PART=1 the
# benches, the rolled getrf's row-major orders (2355f8d) included; PART=2 the bits; PART=3 16
# groups of an order (tools/micro/many_groups.cpp: the runs in a device table, where s56 gave
# launches the pieces too; the bench's device factorization rows are one group; call 2 ran a
# first version with host pointer arrays, whose uploads hid the kernels), then the tests.
# Build here: A (bash tools/prebuilt.sh -n a conformance_gpu_getrf) and E (-n e); from the device
# tool (carry .devdeps .prebuilt; the -dev debs of .devdeps left out):
#   V=e PART=1 bash tools/micro/experiments/getri-pieces.sh   (PART=2, PART=3: as below)
set -u
source .devdeps/device-env.sh > /dev/null 2>&1
T0=$(date +%s); t() { echo "== $1 at $(( $(date +%s) - T0 )) s"; (cd $OUT && tar czf r.tgz r); }
R=$OUT/r; mkdir -p $R
B=${V:-d}
for v in a $B; do d=$PWD/bx-$v; mkdir -p $d && tar -C $d -xJf .prebuilt/$v.tar.xz && ln -sf libblas_batched.so.0 $d/libblas_batched.so; done
cp bx-$B/bench/blas_batched_bench bx-a/bench/blas_batched_bench
bench="--device gpu --backend native-strided --reps 5 --check"
VAR=".prebuilt/a.tar.xz .prebuilt/$B.tar.xz"
if [ "${PART:-1}" = 1 ]; then
t "getri row-major, D against A"
OUT=$R/getri-rm VARIANTS="$VAR" PRECS="r64 r32 c32 r16 c16 c64" \
  ARGS="$bench --routine getri --sizes 4,8,12,16,20,24,28,32 --row-major" timeout 170 bash tools/micro/build_ab.sh
t "getri column-major (control)"
OUT=$R/getri-cm VARIANTS="$VAR" PRECS="r64 r32 c32 r16" ARGS="$bench --routine getri --sizes 8,16,24,32" timeout 60 bash tools/micro/build_ab.sh
t "the inverse in one call, row-major (device pointer arrays)"
OUT=$R/inv-rm VARIANTS="$VAR" PRECS="r64 r32 c32 c16" \
  ARGS="--device gpu --backend native-devptr --reps 5 --check --routine getrf_getri --sizes 8,16,20,24,32 --row-major" timeout 90 bash tools/micro/build_ab.sh
t "getrf row-major at the unrolled orders (the refactor) and the rolled ones (b's instance)"
OUT=$R/getrf-rm VARIANTS="$VAR" PRECS="r64 r32 c32" ARGS="$bench --routine getrf --sizes 8,16,20,24,32 --row-major" timeout 60 bash tools/micro/build_ab.sh
t "getrf row-major at the rolled orders in r16 and c16 (2355f8d)"
OUT=$R/getrf-rm-half VARIANTS="$VAR" PRECS="r16 c16" ARGS="$bench --routine getrf --sizes 18,20,21,24,28,32 --row-major" timeout 60 bash tools/micro/build_ab.sh
t done; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0
fi
if [ "$PART" = 2 ]; then
t "bits"
for r in getri getrf getrf_getri; do
  for p in r64 r32 c32 r16 c16 c64; do
    for layout in --row-major ""; do
      be=native-strided; [ $r = getrf_getri ] && be=native-devptr
      for v in a $B; do
        LD_LIBRARY_PATH=$PWD/bx-$v timeout 20 bx-$v/bench/blas_batched_bench --routine $r --prec $p --sizes 5,8,12,16,20,24,28,32 $layout \
          --device gpu --backend $be --reps 1 --gb 0.05 --digest --csv $R/digest-$r-$p${layout:+-rm}-$v.csv > /dev/null 2>&1 || echo "digest $r $p $v: rc $?"
      done
      python3 tools/micro/digest_compare.py $R/digest-$r-$p${layout:+-rm}-a.csv $R/digest-$r-$p${layout:+-rm}-$B.csv "$r $p${layout:+-rm}"
    done
  done
done
t done; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0
fi
t "row-major, 16 groups of an order: the runs in a device table (s56: pieces there too)"
g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include tools/micro/many_groups.cpp -o $R/many_groups \
  -Lbx-$B -lblas_batched -L/usr/local/cuda/lib64 -lcudart && for v in a $B a; do
  echo "== $v: $(tr '\n' ' ' < bx-$v/REVISION)"; LD_LIBRARY_PATH=$PWD/bx-$v timeout 150 $R/many_groups; done > $R/many-groups.txt 2>&1
cat $R/many-groups.txt
t "tests, $B"
BUILD=$PWD/bx-$B OUT=$R/tests-$B SHARD_SUITES=conformance_gpu_getrf SHARDS=16 SHARD_TIMEOUT=170 \
  SHARD_FILTER="*-*PastTheSolverCrossover*:GpuGetrf/r128.*:GpuGetrf/c128.*" bash tools/gpu-check.sh shards
for tool in memcheck racecheck; do
  t "$tool ($B)"
  BUILD=$PWD/bx-$B OUT=$R/$tool SHARD_SUITES=conformance_gpu_getrf SHARDS=4 SHARD_TIMEOUT=70 SHARD_TOOL=$tool SHARD_REDUCED=1 \
    SHARD_FILTER="GpuGetrf/r64.RowMajorRowsOn16Bytes:GpuGetrf/c32.RowMajorRowsOn16Bytes:GpuGetrf/r16.RowMajorRowsOn16Bytes:GpuGetrf/c16.RowMajorRowsOn16Bytes:GpuGetrf/c16.RandomRowMajor" bash tools/gpu-check.sh shards
done
t done
cd $OUT && tar czf r.tgz r && rm -rf r
