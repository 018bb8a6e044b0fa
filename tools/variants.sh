#!/usr/bin/env bash
# A/B runs of kernel variants, timed in one GPU run. The working tree ("cur") is built once (the
# library, the bench and SUITE); VARIANTS names the others, each either
#   name          the files under .exp/<name>/ (repository paths, e.g. the previous commit's:
#                 git show HEAD:src/cuda/chol/chol.cu > .exp/base/src/cuda/chol/chol.cu; .exp is
#                 git-ignored: carry it) laid over the tree, only the library rebuilt and kept
#                 apart (the bench loads it by LD_LIBRARY_PATH, which comes before its RUNPATH),
#                 the tree restored after (the build dir then holds the last variant's objects;
#                 the restored files are newer, so a later build redoes them); or
#   name:VAR=val  cur's library with an environment variable (a runtime switch, e.g.
#                 BLAS_BATCHED_CHOL_THREAD_MAX=1).
# ROUTINES (default trsm), PRECS, SIZES, SIDE, BACKEND (native-strided), REPS pick the bench
# rows; SUITE (a conformance binary, e.g. conformance_gpu_trsm_trmm) runs first with TESTFILTER.
# Prints variant, routine, prec, backend, n, kernel % of bandwidth (also into
# $OUT/variants-<gpu>.txt); the CSVs come back in one archive, $OUT/variants-csv-<gpu>.tgz.
# Exits 1 when a build, the suite or a --check fails.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$root/gpu-out}; mkdir -p "$O"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
variants=${VARIANTS:-base cur}
build=${BUILD:-$root/build-gpu}
csv=$(mktemp -d)
trap 'tar czf "$O/variants-csv-$gpu.tgz" -C "$csv" . 2>/dev/null' EXIT
rc=0
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$O/variants-configure.log" 2>&1 &&
  ninja -C "$build" blas_batched blas_batched_bench ${SUITE:-} > "$O/variants-build-cur.log" 2>&1 ||
  { echo "build cur failed"; grep -m5 error "$O/variants-build-cur.log"; exit 1; }
keep_library() { rm -rf "/tmp/var-$1"; mkdir -p "/tmp/var-$1" && cp -a "$build"/libblas_batched.so* "/tmp/var-$1/"; }
keep_library cur
echo "build cur $(( $(date +%s) - t0 )) s"
if [ -n "${SUITE:-}" ]; then  # before any variant replaces the library the suite links
  "$build/conformance/$SUITE" --gtest_filter="${TESTFILTER:-*}" > "$O/tests-cur.log" 2>&1 || rc=1
  echo "tests: $(grep -E '^\[  (PASSED|FAILED)' "$O/tests-cur.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$O/tests-cur.log" | head
fi
for v in $variants; do
  name=${v%%:*}
  [[ $v == *:* || $name == cur ]] && continue
  [ -d "$root/.exp/$name" ] || { echo "$name: no .exp/$name (carry .exp)"; rc=1; continue; }
  t1=$(date +%s)
  files=$(cd "$root/.exp/$name" && find . -type f)
  (cd "$root" && tar cf "/tmp/tree-$name.tar" $files 2>/dev/null)  # files the tree lacks stay out
  cp -r "$root/.exp/$name/." "$root/"
  if ninja -C "$build" blas_batched > "$O/variants-build-$name.log" 2>&1; then keep_library "$name"
  else echo "build $name failed"; grep -m5 error "$O/variants-build-$name.log"; rc=1; fi
  (cd "$root" && rm -f $files && tar xmf "/tmp/tree-$name.tar")
  echo "build $name $(( $(date +%s) - t1 )) s"
done
for rep in $(seq "${REPS:-2}"); do
  for v in $variants; do
    name=${v%%:*} setting=
    [[ $v == *:* ]] && setting=${v#*:}
    library=/tmp/var-$name
    [ -n "$setting" ] && library=/tmp/var-cur
    [ -d "$library" ] || continue
    for p in ${PRECS:-r64 r32 c64 c32}; do
      env LD_LIBRARY_PATH="$library" $setting "$build/bench/blas_batched_bench" --routine "${ROUTINES:-trsm}" --prec "$p" \
        --sizes "${SIZES:-4,8,16,32}" --device gpu --check --side "${SIDE:-left}" --backend "${BACKEND:-native-strided}" \
        --csv "$csv/var-$name-$p-$rep-$gpu.csv" > /tmp/variant-run.log 2>&1 || rc=1
      grep -E "^[a-z]+ +[a-z0-9]+ +[a-z-]+ +[0-9]" /tmp/variant-run.log | awk -v n="$name" '{print n, $1, $2, $3, $4, $12}' |
        tee -a "$O/variants-$gpu.txt"
      if grep -E "check failed|^blas_batched_bench:" /tmp/variant-run.log; then rc=1; fi
    done
  done
done
exit $rc
