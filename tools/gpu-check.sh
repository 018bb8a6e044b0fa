#!/usr/bin/env bash
# One job for the GPU machine: build, the CPU and GPU conformance suites, compute-sanitizer
# (memcheck, racecheck) on a reduced GPU run, and the standard gemm sweep; logs and CSVs go to
# $OUT (or ./gpu-out). Stages can be picked: tools/gpu-check.sh test sanitize bench tune profile kernels
# (default: test sanitize bench; also callprofile: the whole call against its kernels and cuBLAS, with its phases; gputest: the GPU suite alone, suite: one test binary,
# shards: test binaries in googletest shards at once, from a prebuilt archive, optionally under compute-sanitizer (SHARD_SUITES, SHARD_TOOL)
# (SUITE, TESTFILTER; with TARGETS to build only what a short job needs), extbench: the extensions,
# lubench: getrf/getri against cuBLAS, factbench: potrf against cuSOLVER and geqrf against
# cuBLAS, factprofile: ncu on their kernels, srcprofile: one kernel's stalls per SASS line (KERNEL, ROUTINE, PREC, N), tribench: trsm/trmm against cuBLAS, triprofile: ncu on the trsm leaf,
# luab: blocked getrf against the unblocked kernel and cuBLAS, cholab: the same for potrf against cuSOLVER,
# qrab: the same for geqrf against cuBLAS, luprofile: ncu time per kernel of a blocked getrf (R=potrf: potrf),
# invbench: the inverse in one call against two calls and cuBLAS, invprofile: ncu on its kernels,
# vendorbench: the vendor backend's factorizations and trsm on device data against the vendor called directly,
# getricross: native getri's crossover to cuBLAS, getriblocked: getri by blocks against before and cuBLAS, stridedab: strided gemm at small orders, chunks and ncu,
# corevendor: the gemm core's rule for cuBLAS on potrf, getrf and trsm at few large problems,
# largeab: getrf and potrf above 512 against the vendor (LARGEBATCH), solverab: getrf above 512, cuSOLVER per
# problem against the blocked algorithm; trilarge: one large triangle's block order and block
# product, TRIBLOCKS, TRILARGE; trileaf: the recursion's leaf order, TRILEAVES; trileafmax: the largest leaf, TRILEAFMAX). A kernel against its previous version on the same card:
# tools/ab_source.sh after a build here. From the device tool:
#   bash tools/gpu-check.sh            (add `source .devdeps/device-env.sh;` first if the
#                                       machine lacks OpenBLAS/LAPACK/GTest; see shared/tools)
# PREBUILT=.prebuilt/a.tar.xz: run binaries built here (tools/prebuilt.sh) instead of building
# (later calls of the job reuse the unpacked archive; FORCE_BUILD=1 builds over it).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
results=${OUT:-$root/gpu-out}  # what must come back: CSVs, the tuning table, one log archive
out=$(mktemp -d)                 # logs, archived into $results at the end
mkdir -p "$results"
trap 'tar czf "$results/logs-$gpu.tgz" -C "$out" . 2>/dev/null; cp "$out"/*.csv "$out"/*.inc "$out"/*.png "$results"/ 2>/dev/null' EXIT
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 | tr ' ' '-')
gpu=${gpu:-nogpu}
stages=${*:-test sanitize bench}
has() { [[ " $stages " == *" $1 "* ]]; }
# sizes_within ELEM COUNT N...: the orders N whose COUNT problems of N x N elements of ELEM bytes
# stay within about 2 GB a call, comma-separated (COUNT 0: about 1 GB from --gb, all kept).
sizes_within() {
  local elem=$1 count=$2 n list=
  shift 2
  for n; do
    [ "$count" != 0 ] && [ $(( count * n * n * elem )) -gt 2200000000 ] && continue
    list=${list:+$list,}$n
  done
  echo "$list"
}
{ nvidia-smi 2>&1 | head -15; nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1; } > "$out/machine-$gpu.txt"
build=${BUILD:-$root/build-gpu}
rc=0
t0=$(date +%s)
if [ -n "${PREBUILT:-}" ]; then
  # Binaries built on the developer's machine (tools/prebuilt.sh): no build here. The stages
  # that run binaries work; the ctest-based ones (test, gputest) need a build of this machine.
  mkdir -p "$build" && tar -C "$build" -xJf "$root/$PREBUILT" || exit 1
  ln -sf libblas_batched.so.0 "$build/libblas_batched.so"
  export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "prebuilt $(tr '\n' ' ' < "$build/REVISION")"
elif [ -f "$build/REVISION" ] && [ -z "${FORCE_BUILD:-}" ]; then
  # A prebuilt archive unpacked here by an earlier call of the same job (PREBUILT not passed
  # again): run it rather than spend minutes of device time building over it. FORCE_BUILD=1
  # builds (the ctest-based stages need that).
  export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "prebuilt, unpacked earlier: $(tr '\n' ' ' < "$build/REVISION") (FORCE_BUILD=1 builds instead)"
else
rm -f "$build/REVISION"  # built here from now on, not a prebuilt archive
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
# TARGETS: build only these (e.g. "blas_batched blas_batched_bench conformance_gpu_potrf_geqrf":
# about 100 s on a cold machine against the whole tree's several minutes).
cmake --build "$build" -j "$(nproc)" ${TARGETS:+--target $TARGETS} -- -k 0 > "$out/build.log" 2>&1 ||
  { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
fi
if has tune; then
  # A fresh table, built in before anything else runs (it comes back in $OUT for the repo).
  OUT=$out GB=0.5 bash "$root/tools/tune_gemm.sh" > /dev/null 2>&1 || rc=1
  cp "$out/gemm_tuning.inc" "$root/src/cuda/gemm/gemm_tuning.inc" &&
    cmake --build "$build" -j "$(nproc)" >> "$out/build.log" 2>&1 || rc=1
fi
if has test; then
  t1=$(date +%s)
  (cd "$build" && ctest -j 8 -L cpu --output-on-failure --timeout 900 > "$out/ctest-cpu-$gpu.log" 2>&1) || rc=1
  (cd "$build" && ctest -j 1 -L gpu --output-on-failure --timeout 900 > "$out/ctest-gpu-$gpu.log" 2>&1) || rc=1
  echo "tests $(( $(date +%s) - t1 )) s"
  grep -hE "tests passed|tests failed|Failed|\(Failed\)|Not Run|Skipped" "$out/ctest-cpu-$gpu.log" "$out/ctest-gpu-$gpu.log" | tail -12
fi
if has gputest; then  # the GPU suite alone (the CPU suite runs here too, in CI)
  t1=$(date +%s)
  # GPU_TESTS: a ctest -R regex to run part of the suite.
  # GPU_JOBS: tests at once on the one GPU (each a process of its own; 1 by default).
  (cd "$build" && ctest -j ${GPU_JOBS:-1} -L gpu ${GPU_TESTS:+-R "$GPU_TESTS"} --output-on-failure --timeout 900 \
    > "$out/ctest-gpu-$gpu.log" 2>&1) || rc=1
  echo "gpu tests $(( $(date +%s) - t1 )) s"
  grep -hE "tests passed|tests failed|\(Failed\)|Not Run|Skipped" "$out/ctest-gpu-$gpu.log" | tail -8
fi
if has suite; then  # one GPU test binary (SUITE) with a googletest filter (TESTFILTER)
  t1=$(date +%s)
  "$build/conformance/${SUITE:?suite needs SUITE}" --gtest_filter="${TESTFILTER:-*}" > "$out/suite-$SUITE-$gpu.log" 2>&1 || rc=1
  echo "suite $SUITE $(( $(date +%s) - t1 )) s: $(grep -E '^\[  (PASSED|FAILED)' "$out/suite-$SUITE-$gpu.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$out/suite-$SUITE-$gpu.log" | head
fi
if has shards; then
  # Test binaries split into googletest shards run at once on the one GPU (a prebuilt archive is
  # enough, no ctest): SHARD_SUITES, SHARDS (8), SHARD_FILTER, SHARD_REDUCED=1 (BB_GPU_REDUCED),
  # SHARD_TOOL=memcheck|racecheck (under compute-sanitizer), SHARD_TIMEOUT seconds a shard.
  # Each shard gets its share of the cores (SHARD_THREADS overrides): 16 shards of 16 OpenMP
  # threads each on 16 cores ran the suite's host checks about 20x slower (s56: c32
  # SingularProblems 163 s, c64's 6 s with 2 threads a shard) and cut shards at their limit.
  t1=$(date +%s)
  tag=${SHARD_TOOL:-plain}${SHARD_REDUCED:+-reduced}
  suites=(${SHARD_SUITES:?shards needs SHARD_SUITES})  # every suite's shards run at once
  shard_threads=${SHARD_THREADS:-$(( $(nproc) / (${SHARDS:-8} * ${#suites[@]}) ))}
  [ "$shard_threads" -ge 1 ] || shard_threads=1
  for suite in "${suites[@]}"; do
    for ((i = 0; i < ${SHARDS:-8}; i++)); do
      OMP_NUM_THREADS=$shard_threads OPENBLAS_NUM_THREADS=$shard_threads \
      GTEST_TOTAL_SHARDS=${SHARDS:-8} GTEST_SHARD_INDEX=$i BB_GPU_REDUCED=${SHARD_REDUCED:-} \
        timeout ${SHARD_TIMEOUT:-560} ${SHARD_TOOL:+compute-sanitizer --tool $SHARD_TOOL --error-exitcode 9} \
        "$build/conformance/$suite" --gtest_filter="${SHARD_FILTER:-*}" > "$out/shard-$tag-$suite-$i.log" 2>&1 &
    done
  done
  wait
  for suite in $SHARD_SUITES; do
    logs=("$out"/shard-$tag-$suite-*.log)
    echo "$suite $tag: $(cat "${logs[@]}" | grep -cE '^\[       OK') passed," \
      "$(cat "${logs[@]}" | grep -cE '^\[  FAILED  \] [A-Za-z]') failed lines, $(cat "${logs[@]}" | grep -cE '^\[  SKIPPED \] [A-Za-z]') skipped," \
      "$(grep -LE '^\[  PASSED' "${logs[@]}" | wc -l) shards unfinished; $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "${logs[@]}" | sort | uniq -c | tr '\n' ' ')"
    grep -hE '^\[  FAILED  \] [A-Za-z]' "${logs[@]}" | sort -u | head
  done
  echo "shards $(( $(date +%s) - t1 )) s"
fi
if has sanitize; then
  # SANITIZE_TOOLS: memcheck and/or racecheck; SANITIZE_FILTER: a googletest filter for every
  # sanitized suite (RACECHECK_FILTER: for racecheck, which is many times slower); SANITIZE_TIMEOUT:
  # seconds per suite and tool (exit 124 when cut).
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    filter=${SANITIZE_FILTER:-*}
    [ $tool = racecheck ] && filter=${RACECHECK_FILTER:-$filter}
    for suite in ${SANITIZE_SUITES:-conformance_gpu_gemm conformance_gpu_extensions conformance_gpu_getrf conformance_gpu_potrf_geqrf conformance_gpu_trsm_trmm internal_device_layer}; do
      BB_GPU_REDUCED=1 timeout ${SANITIZE_TIMEOUT:-1800} compute-sanitizer --tool $tool --error-exitcode 9 \
        "$build/conformance/$suite" --gtest_filter="$filter" > "$out/sanitizer-$tool-$suite.log" 2>&1
      s=$?; [ $s -eq 0 ] || rc=1
      echo "compute-sanitizer $tool $suite: exit $s; $(grep -E 'ERROR SUMMARY|tests? ran|PASSED|FAILED' "$out/sanitizer-$tool-$suite.log" | tr '\n' ' ')"
    done
  done
fi
if has callprofile; then
  # The whole call at one group against its kernels and cuBLAS strided (CALLPREC, CALLSIZES), and
  # where the last call's time went (BLAS_BATCHED_DEBUG=time): fixed costs, chunks, the tail.
  bench=$build/bench/blas_batched_bench
  for p in ${CALLPREC:-r64 r32}; do
    for n in ${CALLSIZES:-8 32 64 128}; do
      echo "== $p n=$n"
      "$bench" --routine gemm --prec $p --sizes $n --device gpu --reps 10 \
        --backend native,native-strided,cublas-direct 2>&1 | grep -E "^gemm" |
        awk '{print $1, $2, $3, $4, $5, "time", $7, "kernel", $8, "k%bw", $12, "%floor", $19}'
      BLAS_BATCHED_DEBUG=time "$bench" --routine gemm --prec $p --sizes $n --device gpu --reps 3 \
        --backend native 2>&1 | grep "blas_batched: " | grep -v "status" | tail -${CALLLINES:-7}
    done
  done > "$out/callprofile-$gpu.log" 2>&1
  cat "$out/callprofile-$gpu.log"
fi
if has profile; then
  # Where a call's time goes (BLAS_BATCHED_DEBUG=time: group checks and the device pass's
  # phases), for one large group and for one problem per group.
  bench=$build/bench/blas_batched_bench
  for opts in "--sizes 4" "--sizes 16" "--sizes 8 --batch 100000 --one-per-group" "--variable-sizes 2:32"; do
    echo "== r64 $opts"
    BLAS_BATCHED_DEBUG=time "$bench" --routine gemm --prec r64 $opts --device gpu --backend native --reps 5 2>&1 |
      grep -E "blas_batched: |^gemm|native" | tail -5
  done > "$out/profile-$gpu.log" 2>&1
  # The variable sizes against cuBLAS's grouped gemm in one run; PROFILE_THREADS: the same call's
  # phases with fewer threads (how each phase scales).
  "$bench" --routine gemm --prec r64 --variable-sizes 2:32 --device gpu --backend native,vendor-grouped --reps 5 2>&1 |
    tail -3 >> "$out/profile-$gpu.log"
  for th in ${PROFILE_THREADS:-}; do
    echo "== r64 --variable-sizes 2:32, $th threads"
    OMP_NUM_THREADS=$th BLAS_BATCHED_DEBUG=time "$bench" --routine gemm --prec r64 --variable-sizes 2:32 --device gpu \
      --backend native --reps 3 2>&1 | grep -E "blas_batched: " | tail -5
  done >> "$out/profile-$gpu.log" 2>&1
  # Residency answered by allocation ranges (not page by page): the driver's range query works.
  echo "allocation range misses: $(BLAS_BATCHED_DEBUG=1 "$bench" --routine gemm --prec r64 --variable-sizes 2:32 \
    --batch 20000 --device gpu --backend native --reps 1 2>&1 | grep -c 'no allocation range')" >> "$out/profile-$gpu.log"
  cat "$out/profile-$gpu.log"
fi
if has kernels; then
  # Kernel time alone (ncu, the sum of the library's gemm kernels over one warm-up and one timed
  # call, halved), against the matrix bytes of a call: the kernel level, apart from the host pass.
  bench=$build/bench/blas_batched_bench
  for p in r64 r32; do
    for n in 4 8 16 32; do
      ncu --csv --metrics gpu__time_duration.sum -k regex:'gemm_(flat|tiles)' "$bench" --routine gemm --prec $p \
        --sizes $n --device gpu --backend native --reps 1 > "$out/ncu-$p-$n.csv" 2> /dev/null
      python3 - "$out/ncu-$p-$n.csv" $p $n <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10 and r[-3] == 'gpu__time_duration.sum']
ns = sum(float(r[-1].replace(',', '')) * (1e3 if r[-2] == 'usecond' else 1e6 if r[-2] == 'msecond' else 1) for r in rows)
p, n = sys.argv[2], int(sys.argv[3])
elem = 8 if p == 'r64' else 4
calls = 2
ms = ns / calls / 1e6 if rows else 0
problems = int(1e9) // (4 * n * n * elem)  # the bench's default: 1 GB of traffic per call
gb = 4 * problems * n * n * elem / 1e9       # A, B read, C read and written
print(f"kernels {p} n={n}: {len(rows)} launches, {ms:.3f} ms per call, {gb / ms * 1e3:.0f} GB/s of matrix traffic" if rows else f"kernels {p} n={n}: none of the library (cuBLAS runs it)")
PY
    done
  done > "$out/kernels-$gpu.log" 2>&1
  cat "$out/kernels-$gpu.log"
fi
if has extbench; then
  # The extensions alone (strided, device pointer arrays, non-blocking), r64 and r32, against
  # cuBLAS; and the kernels of a non-blocking loop (ncu).
  bench=$build/bench/blas_batched_bench
  for p in r64 r32; do
    "$bench" --routine gemm --prec $p --sizes 2,4,8,16,24,32,48,64,128,256 --device gpu --check \
      --backend native-strided,native-devptr,cublas-direct,cublas-batched --csv "$out/ext-$p-$gpu.csv"
    "$bench" --routine gemm --prec $p --sizes 4 --batch 1000 --nonblocking-loop 1000 --device gpu --check \
      --csv "$out/ext-nb-$p-$gpu.csv"
    ncu --csv --metrics gpu__time_duration.sum -k regex:gemm "$bench" --routine gemm --prec $p \
      --sizes 4 --batch 1000 --nonblocking-loop 20 --reps 1 --device gpu 2> /dev/null |
      python3 -c "import csv,sys; r=[x for x in csv.reader(sys.stdin) if len(x)>10 and x[-3]=='gpu__time_duration.sum']; import collections; d=collections.defaultdict(list); [d[x[4][:60]].append(float(x[-1].replace(',',''))) for x in r]; [print('ncu $p', k, len(v), 'launches, median', sorted(v)[len(v)//2], r[0][-2]) for k,v in d.items()]"
  done > "$out/extbench-$gpu.log" 2>&1
  grep -E "^gemm|^ncu|rout" "$out/extbench-$gpu.log"
fi
if has stridedab; then
  # Strided gemm at small orders: chunks per call (BLAS_BATCHED_DEBUG=time), the call against
  # cuBLAS strided, and ncu on the library's kernel (registers, occupancy, DRAM throughput).
  bench=$build/bench/blas_batched_bench
  for p in ${STRIDEDPREC:-r64 r32}; do
    for n in ${STRIDEDSIZES:-2 4 8 16}; do
      echo "== $p n=$n"
      BLAS_BATCHED_DEBUG=time "$bench" --routine gemm --prec $p --sizes $n --device gpu --reps 5 \
        --backend native-strided,cublas-batched > "$out/stridedab-run.log" 2>&1
      grep -E "^gemm" "$out/stridedab-run.log"
      echo "device passes: $(grep -o "[0-9]* chunks" "$out/stridedab-run.log" | sort | uniq -c | tr '\n' ' ')"
      grep "device pass" "$out/stridedab-run.log" | tail -2
      ncu --csv --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
        -k regex:'gemm_(flat|tiles)' -c 1 "$bench" --routine gemm --prec $p --sizes $n --device gpu \
        --backend native-strided --reps 1 2> /dev/null | awk -F'","' 'NF > 10 {print "ncu", $5, $(NF-2), $NF}' | cut -c1-200
    done
  done > "$out/stridedab-$gpu.log" 2>&1
  cat "$out/stridedab-$gpu.log"
fi
if has largeab; then
  # getrf and potrf above 512 (LARGEPREC, LARGESIZES): the library's blocked kernels against the
  # vendor called directly (cuBLAS getrfBatched, cuSOLVER potrfBatched), for their crossovers.
  bench=$build/bench/blas_batched_bench
  # The native rows once as built and once with no crossover to cuSOLVER (potrf's
  # BLAS_BATCHED_CHOL_VENDOR_MIN and _SOLVER_MIN past every order: the blocked algorithm alone).
  # LARGEBATCH: problems per call, one run each (0: about 1 GB).
  mkdir -p "$out/parts"
  for p in ${LARGEPREC:-r64 r32}; do
    for b in ${LARGEBATCH:-0}; do
      batch=(); [ "$b" != 0 ] && batch=(--batch "$b")
      echo "-- $p batch $b: as built, vendor direct"
      "$bench" --routine ${LARGEROUTINES:-getrf,potrf} --prec $p --sizes ${LARGESIZES:-512,768,1024,2048} "${batch[@]}" \
        --device gpu --reps 3 --backend native,cublas-direct --csv "$out/parts/large-$p-b$b-$gpu.csv"
      echo "-- $p batch $b: blocked only"
      BLAS_BATCHED_CHOL_VENDOR_MIN=1073741824 BLAS_BATCHED_CHOL_SOLVER_MIN=1073741824 \
        "$bench" --routine ${LARGEROUTINES:-getrf,potrf} --prec $p \
        --sizes ${LARGESIZES:-512,768,1024,2048} "${batch[@]}" --device gpu --reps 3 --backend native \
        --csv "$out/parts/large-blocked-$p-b$b-$gpu.csv"
    done
  done > "$out/largeab-$gpu.log" 2>&1
  cat "$out"/parts/large-*.csv > "$results/largeab-$gpu.csv"
  grep -E "^(getrf|potrf)|^--" "$out/largeab-$gpu.log" | awk '{print $1, $2, $3, $4, $5, $7, $12, $14}'
fi
if has cholgemm; then
  # potrf's blocked algorithm with each diagonal block's left product by the gemm calls
  # (BLAS_BATCHED_CHOL_DIAG_GEMM_MIN=1: from every order) and without (past every order), against cuSOLVER potrfBatched called directly and cuSOLVER's per-problem potrf
  # forced (up to 64 problems): CHOLPREC, CHOLCOUNTS (0: about 1 GB), CHOLSIZES, CHOLUPLO;
  # CHOLWARP=0 leaves out the rows with the diagonal kernel's own products.
  bench=$build/bench/blas_batched_bench
  big=1073741824
  mkdir -p "$out/parts"
  for p in ${CHOLPREC:-r64 r32}; do
    for b in ${CHOLCOUNTS:-1 4 16 64 256 0}; do
      batch=(); [ "$b" != 0 ] && batch=(--batch "$b")
      sizes=$(sizes_within 8 "$b" ${CHOLSIZES:-64 128 256 512 1024 2048})
      common=(--routine potrf --uplo ${CHOLUPLO:-lower} --prec $p --sizes $sizes "${batch[@]}" --device gpu --reps 3)
      echo "-- $p batch $b"
      [ "${CHOLWARP:-1}" = 1 ] && BLAS_BATCHED_CHOL_VENDOR_MIN=$big BLAS_BATCHED_CHOL_SOLVER_MIN=$big BLAS_BATCHED_CHOL_DIAG_GEMM_MIN=$big \
        "$bench" "${common[@]}" --backend native --tag warp --csv "$out/parts/cg-warp-$p-b$b-$gpu.csv"
      BLAS_BATCHED_CHOL_VENDOR_MIN=$big BLAS_BATCHED_CHOL_SOLVER_MIN=$big BLAS_BATCHED_CHOL_DIAG_GEMM_MIN=1 \
        "$bench" "${common[@]}" --backend native --tag gemm --csv "$out/parts/cg-gemm-$p-b$b-$gpu.csv"
      "$bench" "${common[@]}" --backend native,cublas-direct --csv "$out/parts/cg-built-$p-b$b-$gpu.csv"
      [ "$b" != 0 ] && [ "$b" -le 64 ] && BLAS_BATCHED_CHOL_VENDOR_MIN=$big BLAS_BATCHED_CHOL_SOLVER_MIN=1 \
        "$bench" "${common[@]}" --backend native --tag solver --csv "$out/parts/cg-solver-$p-b$b-$gpu.csv"
    done
  done > "$out/cholgemm-$gpu.log" 2>&1
  cat "$out"/parts/cg-*.csv > "$results/cholgemm-$gpu.csv"
  grep -E "^potrf|^--" "$out/cholgemm-$gpu.log" | awk '{print $1, $2, $3, $4, $5, $7, $NF}'
fi
if has corevendor; then
  # The gemm core's rule for cuBLAS (kCoreVendorMinWork, gemm_tuning.hpp) at each CVWORK
  # threshold (m n k x problems; 65536 as built, 268435456 the calls' rule; r32 and r64 only,
  # the other precisions keep the calls' rule) on its callers: potrf's blocked algorithm
  # alone, getrf without cuSOLVER's per-problem path, trsm; CVROUTINES, CVPREC, CVCOUNTS,
  # CVSIZES, CVREPS; the vendor called directly beside them.
  bench=$build/bench/blas_batched_bench
  big=1073741824
  mkdir -p "$out/parts"
  for p in ${CVPREC:-r64 r32}; do
    for b in ${CVCOUNTS:-4 16 29 64}; do
      sizes=$(sizes_within 16 "$b" ${CVSIZES:-512 1024 2048})
      [ -n "$sizes" ] || continue
      common=(--routine ${CVROUTINES:-potrf,getrf,trsm} --prec $p --sizes $sizes --batch $b --device gpu --reps ${CVREPS:-3})
      echo "-- $p batch $b"
      for w in ${CVWORK:-65536 268435456 1}; do
        echo "-- work $w"
        BLAS_BATCHED_CORE_VENDOR_MIN_WORK=$w BLAS_BATCHED_CHOL_VENDOR_MIN=$big BLAS_BATCHED_CHOL_SOLVER_MIN=$big \
          BLAS_BATCHED_LU_SOLVER_MIN=$big "$bench" "${common[@]}" --backend native --tag w$w \
          --csv "$out/parts/cv-w$w-$p-b$b-$gpu.csv"
      done
      echo "-- vendor"
      "$bench" "${common[@]}" --backend cublas-direct --csv "$out/parts/cv-vendor-$p-b$b-$gpu.csv"
    done
  done > "$out/corevendor-$gpu.log" 2>&1
  cat "$out"/parts/cv-*.csv > "$results/corevendor-$gpu.csv"
  grep -E "^(potrf|getrf|trsm) |^--" "$out/corevendor-$gpu.log" | awk '{print $1, $2, $3, $4, $5, $7, $NF}'
fi
if has solverab; then
  # getrf above 512 (SOLVERPREC, SOLVERSIZES, SOLVERBATCH: counts of problems, 0 for about 1 GB):
  # the native backend as built, with cuSOLVER's per-problem getrf forced (BLAS_BATCHED_LU_SOLVER_MIN=1),
  # with the blocked algorithm alone, and cuBLAS getrfBatched called directly; for lu_tuning.hpp's
  # crossover.
  # SOLVERROUTINE=potrf (SOLVERUPLO lower or upper): its per-problem crossover, the same way.
  bench=$build/bench/blas_batched_bench
  routine=${SOLVERROUTINE:-getrf}
  knob=BLAS_BATCHED_LU_SOLVER_MIN; uplo=()
  [ "$routine" = potrf ] && knob=BLAS_BATCHED_CHOL_SOLVER_MIN && uplo=(--uplo ${SOLVERUPLO:-lower})
  for p in ${SOLVERPREC:-r64 r32}; do
    for b in ${SOLVERBATCH:-0 1 4}; do
      batch=(); [ "$b" != 0 ] && batch=(--batch "$b")
      sizes=${SOLVERSIZES:-512,768,1024,1536,2048}
      echo "-- $p batch $b: as built, cublas-direct"
      "$bench" --routine $routine "${uplo[@]}" --prec $p --sizes $sizes "${batch[@]}" --device gpu --reps 3 \
        --backend native,cublas-direct --csv "$out/solver-$routine-$p-b$b-$gpu.csv"
      echo "-- $p batch $b: cuSOLVER forced"
      env $knob=1 "$bench" --routine $routine "${uplo[@]}" --prec $p --sizes $sizes "${batch[@]}" --device gpu \
        --reps 3 --backend native --tag solver --csv "$out/solver-forced-$routine-$p-b$b-$gpu.csv"
      echo "-- $p batch $b: without the per-problem path"
      env $knob=1073741824 "$bench" --routine $routine "${uplo[@]}" --prec $p --sizes $sizes "${batch[@]}" \
        --device gpu --reps 3 --backend native --tag blocked --csv "$out/solver-blocked-$routine-$p-b$b-$gpu.csv"
    done
  done > "$out/solverab-$gpu.log" 2>&1
  grep -E "^(getrf|potrf)|^--" "$out/solverab-$gpu.log" | awk '{print $1, $2, $3, $4, $5, $6, $7, $12, $14}'
  (cd "$out" && cat solver-*.csv > "$results/solverab-$gpu.csv")
fi
if has lubench; then
  # getrf and getri on the GPU against cuBLAS (LUPREC, LUSIZES pick a part: one call is 10 min).
  bench=$build/bench/blas_batched_bench
  for p in ${LUPREC:-r64 r32 c64 c32 r16}; do
    "$bench" --routine getrf,getri --prec $p --sizes ${LUSIZES:-2,4,8,16,32,64,128,256,512} --device gpu --check \
      --backend native,native-strided,native-devptr,cublas-direct --csv "$out/lu-$p-$gpu.csv"
  done > "$out/lubench-$gpu.log" 2>&1
  grep -E "^get" "$out/lubench-$gpu.log" | awk '{print $1, $2, $3, $4, $5, $6, $12, $14, $16, $17}'
fi
if has factbench; then
  # potrf (uplo Lower) against cusolverDn<t>potrfBatched and geqrf against cublas<t>geqrfBatched
  # (FACTROUTINES, FACTPREC, FACTSIZES pick a part: one call is 10 min).
  bench=$build/bench/blas_batched_bench
  for p in ${FACTPREC:-r64 r32 c64 c32 r16}; do
    "$bench" --routine ${FACTROUTINES:-potrf,geqrf} --prec $p --sizes ${FACTSIZES:-2,4,8,16,32,64,128,256,512} --device gpu --check \
      --backend native,native-strided,native-devptr,cublas-direct --csv "$out/fact-$p-$gpu.csv"
  done > "$out/factbench-$gpu.log" 2>&1
  # Rows (routine, prec, backend, n, batch, groups, k%bw, vs_cubl, ovh, error), then what failed.
  grep -E "^(potrf|geqrf) +[a-z0-9]+ +[a-z-]+ +[0-9]" "$out/factbench-$gpu.log" |
    awk '{print $1, $2, $3, $4, $5, $6, $12, $14, $16, $17}'
  grep -E "check failed|skipped|^blas_batched_bench:" "$out/factbench-$gpu.log" | head -20
fi
if has vendorbench; then
  # The vendor backend on device data (cuBLAS, cuSOLVER behind the library's call) against the
  # same vendor routines called directly (VENDORPREC, VENDORSIZES pick a part).
  bench=$build/bench/blas_batched_bench
  for p in ${VENDORPREC:-r64 c64}; do
    "$bench" --routine potrf,geqrf,getrf,getri,trsm --prec $p --sizes ${VENDORSIZES:-4,16,32,64,128} --device gpu \
      --check --backend native,vendor,cublas-direct --csv "$out/vendor-$p-$gpu.csv"
  done > "$out/vendorbench-$gpu.log" 2>&1
  grep -E "^(potrf|geqrf|getrf|getri|trsm) +[a-z0-9]+ +[a-z-]+ +[0-9]" "$out/vendorbench-$gpu.log" |
    awk '{print $1, $2, $3, $4, $5, $6, $12, $14, $16, $17}'
  grep -E "check failed|skipped|^blas_batched_bench:" "$out/vendorbench-$gpu.log" | head -20
fi
if has tribench; then
  # Batched trsm and trmm (side Left, Lower, NoTrans, NonUnit) against cublas<t>trsmBatched (trmm:
  # no batched cuBLAS routine), and one large problem (M = 8192, N = 512, r64) against cuBLAS's
  # trsm/trmm and the DGEMM of the same flops (TRIPREC, TRISIZES pick a part; TRISIDE=right).
  bench=$build/bench/blas_batched_bench
  for p in ${TRIPREC:-r64 r32 c64 c32 r16}; do
    "$bench" --routine trsm,trmm --prec $p --sizes ${TRISIZES:-2,4,8,16,32,64,128,256} --device gpu --check \
      --side ${TRISIDE:-left} --backend native,native-strided,native-devptr,cublas-direct \
      --csv "$out/tri-$p${TRISIDE:+-$TRISIDE}-$gpu.csv"
  done > "$out/tribench-$gpu.log" 2>&1
  grep -E "^(trsm|trmm) +[a-z0-9]+ +[a-z-]+ +[0-9]" "$out/tribench-$gpu.log" |
    awk '{print $1, $2, $3, $4, $5, $6, $12, $14, $16, $17}'
  grep -E "check failed|skipped|^blas_batched_bench:" "$out/tribench-$gpu.log" | head -20
  "$build/bench/blas_batched_tri_large" 8192 512 > "$out/tri-large-$gpu.csv" 2>&1 || rc=1
  cat "$out/tri-large-$gpu.csv"
fi
if has trileaf; then
  # The recursion's leaf order (BLAS_BATCHED_TRI_RECURSION_LEAF, tri_tuning.hpp) above 32:
  # TRILEAVES in turn, twice (A B A B), batched trsm and trmm, strided, against cuBLAS.
  # Printed: rep, leaf, routine, prec, backend, n, batch, ms, kernel ms, x cuBLAS, error.
  bench=$build/bench/blas_batched_bench
  for rep in 1 2; do
    for leaf in ${TRILEAVES:-32 16}; do
      for p in ${TRIPREC:-c64 c32}; do
        BLAS_BATCHED_TRI_RECURSION_LEAF=$leaf "$bench" --routine trsm,trmm --prec $p \
          --sizes ${TRISIZES:-48,64,96,128,256} --device gpu --check --backend native-strided,cublas-direct \
          --csv "$out/trileaf-$leaf-$p-$rep-$gpu.csv" 2>&1 | sed "s/^/$rep $leaf /" || rc=1
      done
    done
  done > "$out/trileaf-$gpu.log" 2>&1
  grep -E "^[0-9]+ [0-9]+ (trsm|trmm) +[a-z0-9]+ +[a-z-]+ +[0-9]" "$out/trileaf-$gpu.log" |
    awk '{print $1, $2, $3, $4, $5, $6, $7, $9, $10, $16, $19}'
  grep -E "check failed|skipped|blas_batched_bench:" "$out/trileaf-$gpu.log" | grep -v "no batched trmm" | head -20
fi
if has trileafmax; then
  # The largest leaf (BLAS_BATCHED_TRI_LEAF_MAX, tri_leaf_max in tri_tuning.hpp: the crossover
  # between the fused leaf and the recursion): TRILEAFMAX in turn (0: the default), twice
  # (A B A B), batched trsm and trmm, strided. Printed: rep, limit, routine, prec, backend, n,
  # GFLOP/s, error.
  bench=$build/bench/blas_batched_bench
  for rep in 1 2; do
    for lm in ${TRILEAFMAX:-0 64}; do
      BLAS_BATCHED_TRI_LEAF_MAX=$lm "$bench" --routine trsm,trmm --prec ${TRIPREC:-r32,r16} \
        --sizes ${TRISIZES:-33,40,48,56,64} --device gpu --check --backend native-strided --gb 0.5 \
        --csv "$out/trileafmax-$lm-$rep-$gpu.csv" 2>&1 | sed "s/^/$rep $lm /" || rc=1
    done
  done > "$out/trileafmax-$gpu.log" 2>&1
  grep -E "^[0-9]+ [0-9]+ (trsm|trmm) +[a-z0-9]+ +[a-z-]+ +[0-9]" "$out/trileafmax-$gpu.log" |
    awk '{print $1, $2, $3, $4, $5, $6, $11, $19}'
  grep -E "check failed|blas_batched_bench:" "$out/trileafmax-$gpu.log" | head -20
fi
if has trilarge; then
  # One large triangle by diagonal blocks under its switches (tri_tuning.hpp): block orders
  # TRIBLOCKS, each block's product by gemm on a copy or by cuBLAS's trmm in place, the call as
  # called and queued (the GPU alone), at TRILARGE ("M N" pairs, comma-separated).
  IFS=, read -ra shapes <<< "${TRILARGE:-8192 512,4096 512}"
  for nb in ${TRIBLOCKS:-256 512 1024}; do
    for leaf in gemm trmm; do
      for mn in "${shapes[@]}"; do
        # shellcheck disable=SC2086
        BLAS_BATCHED_TRI_INVERSE_BLOCK=$nb BLAS_BATCHED_TRI_BLOCK_LEAF=$leaf "$build/bench/blas_batched_tri_large" $mn 10 |
          grep -v "^device" | sed "s/^/$nb,$leaf,/" || rc=1
      done
    done
  done > "$out/trilarge-$gpu.csv" 2>&1
  grep -E "native|dgemm" "$out/trilarge-$gpu.csv" | awk -F, '{print $1, $2, $4, $5, $6, $7, $8, $10, $11}'
fi
if has invbench; then
  # The inverse in one call against getrf + getri as two calls and cuBLAS getrfBatched +
  # getriBatched (+ the copy back), and the one-pass kernel against getrf's and getri's kernels
  # (BLAS_BATCHED_LU_ONE_PASS=0) on device pointer arrays (INVPREC, INVSIZES pick a part).
  bench=$build/bench/blas_batched_bench
  for p in ${INVPREC:-r64 r32 c64 c32 r16}; do
    "$bench" --routine getrf_getri --prec $p --sizes ${INVSIZES:-4,8,16,24,32,64,128} --device gpu --check --reps 5 \
      --backend native,native-devptr,cublas-direct --csv "$out/inv-$p-$gpu.csv"
    BLAS_BATCHED_LU_ONE_PASS=0 "$bench" --routine getrf_getri --prec $p --sizes ${INVABSIZES:-8,16,32} --device gpu \
      --reps 5 --backend native-devptr | sed 's/native-devptr/two-kernels/'
  done > "$out/invbench-$gpu.log" 2>&1
  grep -E "^getrf_getri|check failed" "$out/invbench-$gpu.log" | awk '{print $2, $3, $4, $7 " ms", $11 "%", "k" $12 "%", "x" $14, $17}'
fi
if has getricross; then
  # Native getri's crossover to cuBLAS (lu_tuning.hpp): the library's kernels alone
  # (BLAS_BATCHED_LU_GETRI_VENDOR_MIN past every order), the native backend as built, and the
  # vendor backend, per order (CROSSPREC, CROSSSIZES pick a part).
  bench=$build/bench/blas_batched_bench
  sizes=${CROSSSIZES:-32,48,64,80,96,112,128,160,192,256}
  for p in ${CROSSPREC:-r64 r32 c64 c32}; do
    "$bench" --routine getri --prec $p --sizes $sizes --device gpu --backend native,vendor --reps 3 \
      --csv "$out/getricross-$p-$gpu.csv" > /dev/null 2>&1 || rc=1
    BLAS_BATCHED_LU_GETRI_VENDOR_MIN=100000 "$bench" --routine getri --prec $p --sizes $sizes --device gpu \
      --backend native --reps 3 --csv "$out/getricross-kernels-$p-$gpu.csv" > /dev/null 2>&1 || rc=1
    python3 - "$out/getricross-$p-$gpu.csv" "$out/getricross-kernels-$p-$gpu.csv" <<'PY'
import csv, sys
x = {(r['n'], r['backend']): r for r in csv.DictReader(open(sys.argv[1]))}
k = {r['n']: r for r in csv.DictReader(open(sys.argv[2]))}
for n in sorted(k, key=int):
    kt, nt, vt = (float(r['time_ms']) for r in (k[n], x[(n, 'native')], x[(n, 'vendor')]))
    print(f"getri {k[n]['prec']} n={n}: kernels {kt:.3f} ms, native {nt:.3f}, vendor {vt:.3f}; "
          f"kernels/vendor {kt / vt:.2f}, native/best {nt / min(kt, vt):.2f}")
PY
  done > "$out/getricross-$gpu.log" 2>&1
  cat "$out/getricross-$gpu.log"
fi
if has getriblocked; then
  # getri's blocked algorithm (getri_blocked.cu) against what ran before it (the one-block
  # kernels, cuBLAS from lu_getri_vendor_min_order: BLAS_BATCHED_LU_GETRI_BLOCKED_MIN past every
  # order) and cuBLAS getriBatched called directly (out of place plus the copy back), one run
  # per precision (GBPREC, GBSIZES pick a part; GBFORMS: native and/or native-devptr; GBBATCH:
  # problems per call instead of about 1 GB; GBVENDORMIN: BLAS_BATCHED_LU_GETRI_VENDOR_MIN, for
  # both runs).
  # GBBEFORE: the environment of the "before" run instead (e.g. BLAS_BATCHED_LU_GETRI_LANES=0).
  bench=$build/bench/blas_batched_bench
  before_env=${GBBEFORE:-BLAS_BATCHED_LU_GETRI_BLOCKED_MIN=100000}
  sizes=${GBSIZES:-33,48,64,96,128,192,256}
  batch=(); [ -n "${GBBATCH:-}" ] && batch=(--batch "$GBBATCH")
  for p in ${GBPREC:-r64 r32 c64 c32}; do
    BLAS_BATCHED_LU_GETRI_VENDOR_MIN=${GBVENDORMIN:-} "$bench" --routine getri --prec $p --sizes $sizes --device gpu \
      --backend ${GBFORMS:-native},cublas-direct --reps 3 --check "${batch[@]}" \
      --csv "$out/getriblocked-$p-$gpu.csv" > /dev/null 2>&1 || rc=1
    env $before_env BLAS_BATCHED_LU_GETRI_VENDOR_MIN=${GBVENDORMIN:-} "$bench" --routine getri --prec $p --sizes $sizes --device gpu \
      --backend native --reps 3 "${batch[@]}" --csv "$out/getriblocked-before-$p-$gpu.csv" > /dev/null 2>&1 || rc=1
    python3 - "$out/getriblocked-$p-$gpu.csv" "$out/getriblocked-before-$p-$gpu.csv" <<'PY'
import csv, sys
x = {(r['n'], r['backend']): r for r in csv.DictReader(open(sys.argv[1]))}
b = {r['n']: r for r in csv.DictReader(open(sys.argv[2]))}
for n in sorted(b, key=int):
    row = x.get((n, 'native')) or x.get((n, 'native-devptr'))
    c = x.get((n, 'cublas-direct'))
    if not row or not c: continue
    t, bt, ct = float(row['time_ms']), float(b[n]['time_ms']), float(c['time_ms'])
    print(f"getri {row['prec']} n={n} batch {row['batch']}: blocked {t:.3f} ms (kernels {float(row['kernel_ms']):.3f}, "
          f"{row['pct_bw']} % bw), before {bt:.3f}, cublas-direct {ct:.3f}; x cuBLAS {ct / t:.2f}, x before {bt / t:.2f}, "
          f"error {row['error']}")
PY
  done > "$out/getriblocked-$gpu.log" 2>&1
  cat "$out/getriblocked-$gpu.log"
fi
if has luab; then  # getrf blocked vs unblocked vs cuBLAS (tools/blocked_ab.sh: P, S, BMIN)
  OUT=$out BUILD=$build R=getrf bash "$root/tools/blocked_ab.sh"
fi
if has cholab; then  # potrf blocked vs unblocked vs cuSOLVER (tools/blocked_ab.sh: P, S, BMIN)
  OUT=$out BUILD=$build R=potrf bash "$root/tools/blocked_ab.sh"
fi
if has qrab; then  # geqrf blocked vs unblocked vs cuBLAS (tools/blocked_ab.sh: P, S, BMIN)
  OUT=$out BUILD=$build R=geqrf BMIN=${BMIN:-33} bash "$root/tools/blocked_ab.sh"
fi
if has luprofile; then  # ncu time per kernel of a blocked getrf (tools/lu_profile.sh: LUPROFILE)
  OUT=$out BUILD=$build bash "$root/tools/lu_profile.sh"
fi
# One kernel launch under ncu: throughput, occupancy and memory sections, then the stall
# reasons in cycles per issued instruction (the largest first). profile_kernel REGEX BENCH_ARGS...
# (PROFILE_SKIP=k: the (k+1)-th matching launch)
profile_kernel() {
  local regex=$1; shift
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section InstructionStats -k regex:"$regex" --launch-skip "${PROFILE_SKIP:-0}" -c 1 "$build/bench/blas_batched_bench" "$@" --device gpu --reps 1 2>&1 |
    grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|L1/TEX Hit|Mem Busy|Max Bandwidth|Warp Cycles Per Issued|Executed Instructions|One or More" | head -40
  ncu --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' -k regex:"$regex" \
    --launch-skip "${PROFILE_SKIP:-0}" -c 1 \
    "$build/bench/blas_batched_bench" "$@" --device gpu --reps 1 2>&1 |
    grep -E "stalled" | awk '{print $NF, $1}' | sort -rn | head -6
}
# profile_pairs LOG KERNEL ROUTINE BACKEND PREC:N...: profile_kernel on each pair, into $out/LOG-$gpu.log.
profile_pairs() {
  local log=$1 kernel=$2 routine=$3 backend=$4
  shift 4
  for spec in "$@"; do
    set -- ${spec/:/ }
    echo "== $routine $1 n=$2 ($kernel)"
    profile_kernel "$kernel" --routine "$routine" --prec "$1" --sizes "$2" --backend "$backend"
  done > "$out/$log-$gpu.log" 2>&1
  cat "$out/$log-$gpu.log"
}
if has triprofile; then
  # Why the trsm leaf runs where it does, one launch each: r64 at n = 4 and 32 (leaf), c64 at 32
  # (TRIPROFILE: "prec:n" pairs to profile instead).
  profile_pairs triprofile tri_leaf trsm native-strided ${TRIPROFILE:-r64:4 r64:32 c64:32}
fi
if has invprofile; then
  # Why the one-pass inverse kernels run where they do, one launch each (INVPROFILE: "prec:n"
  # pairs, default r64:4 r64:16 r64:32).
  profile_pairs invprofile getrf_getri getrf_getri native-devptr ${INVPROFILE:-r64:4 r64:16 r64:32}
fi
if has factprofile; then
  # Why a factorization kernel runs where it does, one launch each: potrf and geqrf register
  # kernels at n = 32, geqrf's block kernel and potrf's blocked algorithm's diagonal blocks
  # (its second launch: the first block has no left part) at n = 128.
  for spec in "potrf 32 potrf_register 0" "geqrf 32 geqrf_register 0" "potrf 128 potrf_diag 1" "geqrf 128 geqrf_shared 0"; do
    set -- $spec
    echo "== $1 r64 n=$2 ($3)"
    PROFILE_SKIP=$4 profile_kernel "$3" --routine "$1" --prec r64 --sizes "$2" --backend native-strided
  done > "$out/factprofile-$gpu.log" 2>&1
  cat "$out/factprofile-$gpu.log"
fi
if has srcprofile; then
  # Where one kernel's warps wait, per SASS instruction (ncu's source page, sampled stalls):
  # KERNEL (a regex), ROUTINE, PREC, N pick the launch (strided, one launch; SRC_ARGS more bench
  # arguments, e.g. --row-major). The 25 lines with
  # the most samples are printed; the whole page comes back as srcprofile-<kernel>-<gpu>.csv.
  name=$(echo "${KERNEL:?srcprofile needs KERNEL}" | tr -c 'A-Za-z0-9_\n' '_')
  ncu --section SourceCounters --section WarpStateStats -k regex:"$KERNEL" -c 1 -f -o "$out/src-$name" \
    "$build/bench/blas_batched_bench" --routine "${ROUTINE:-geqrf}" --prec "${PREC:-r64}" --sizes "${N:-32}" \
    --backend native-strided --device gpu --reps 1 ${SRC_ARGS:-} > "$out/srcprofile-run-$gpu.log" 2>&1 || rc=1
  ncu -i "$out/src-$name.ncu-rep" --page source --csv --print-source sass > "$out/srcprofile-$name-$gpu.csv" 2>&1 || rc=1
  python3 - "$out/srcprofile-$name-$gpu.csv" <<'PYEOF' || tail -5 "$out/srcprofile-$name-$gpu.csv"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if any('Stall Sampling' in c for c in r))
cols = rows[head]
samples = next(i for i, c in enumerate(cols) if 'Stall Sampling (All' in c)
source = next(i for i, c in enumerate(cols) if c.strip('"') == 'Source')
def num(x):
    try: return float(x.replace(',', ''))
    except ValueError: return 0.0
body = [r for r in rows[head + 1:] if len(r) > max(samples, source)]
total = sum(num(r[samples]) for r in body) or 1
for r in sorted(body, key=lambda r: -num(r[samples]))[:25]:
    print(f"{100 * num(r[samples]) / total:5.1f} %  {r[source]}")
PYEOF
fi
if has gemmncu; then
  # The tiny gemm kernels under ncu (issue 7's H200 target): speed of light, occupancy, launch
  # shape, warp stalls and memory per kernel, for GEMMNCU="r64:4 r64:8 ..." (first kernel of a
  # strided call of about 1 GB; GEMMNCU_CLOCK=none: at the clocks the card runs, not ncu's base
  # clock); the full pages come back in the log archive.
  for pn in ${GEMMNCU:-r64:4 r64:8 r64:16 r32:8 r32:16}; do
    ncu ${GEMMNCU_CLOCK:+--clock-control $GEMMNCU_CLOCK} --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis -k regex:'gemm_(flat|tiles)' -c 1 \
      "$build/bench/blas_batched_bench" --routine gemm --prec ${pn%%:*} --sizes ${pn##*:} \
      --backend native-strided --device gpu --reps 1 > "$out/gemmncu-${pn/:/-}-$gpu.log" 2>&1 || rc=1
    echo "== $pn: $(grep -E '^  void gemm_' "$out/gemmncu-${pn/:/-}-$gpu.log" | head -1 | cut -c1-110)"
    grep -E "^    (SM Frequency|L1/TEX Cache Throughput|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Size|Grid Size|Waves Per SM|Block Limit (Registers|Shared Mem|Warps|SM)|Warp Cycles Per Issued Instruction|Avg. Active Threads Per Warp|Mem Busy|Max Bandwidth|L2 Hit Rate)" \
      "$out/gemmncu-${pn/:/-}-$gpu.log" | sed 's/  */ /g' | tr '\n' ';'
    echo
  done
fi
if has bench; then
  bash "$root/bench/run_gpu_sweep.sh" "$out" > "$out/bench-sweep-$gpu.log" 2>&1 || rc=1
  tail -40 "$out/bench-sweep-$gpu.log"
fi
exit $rc
