#!/usr/bin/env bash
# A/B runs of kernel variants, timed in one GPU run. The working tree ("cur") is built once (the
# library, the bench and SUITE); VARIANTS names the others, each either
#   name          the files under .exp/<name>/ (repository paths, e.g. the previous commit's:
#                 git show HEAD:src/cuda/chol/chol.cu > .exp/base/src/cuda/chol/chol.cu; .exp is
#                 git-ignored: carry it) laid over the tree, only the library rebuilt and kept
#                 apart (the bench loads it by LD_LIBRARY_PATH, which comes before its RUNPATH),
#                 the tree restored after (also when the run is cut short) and cur's library
#                 rebuilt at the end, so the build dir matches the tree again; or
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
overlaid=()  # the files of the variant now laid over the tree, saved in $saved
saved=
restore_tree() {
  [ ${#overlaid[@]} -gt 0 ] || return 0
  (cd "$root" && rm -f -- "${overlaid[@]}" && { [ ! -s "$saved" ] || tar xmf "$saved"; })
  overlaid=()
}
trap 'restore_tree; tar czf "$O/variants-csv-$gpu.tgz" -C "$csv" . 2>/dev/null' EXIT
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
  rm -rf "/tmp/var-$name"  # never time an earlier run's library
  mapfile -t files < <(cd "$root/.exp/$name" 2>/dev/null && find . -type f)
  [ ${#files[@]} -gt 0 ] || { echo "$name: no files under .exp/$name (carry .exp)"; rc=1; continue; }
  t1=$(date +%s)
  saved=$(mktemp)
  present=()  # files the tree lacks are removed again, not restored
  for f in "${files[@]}"; do [ -e "$root/$f" ] && present+=("$f"); done
  [ ${#present[@]} -eq 0 ] || (cd "$root" && tar cf "$saved" -- "${present[@]}")
  overlaid=("${files[@]}")
  cp -r "$root/.exp/$name/." "$root/"
  if ninja -C "$build" blas_batched > "$O/variants-build-$name.log" 2>&1; then keep_library "$name"
  else echo "build $name failed"; grep -m5 error "$O/variants-build-$name.log"; rc=1; fi
  restore_tree
  echo "build $name $(( $(date +%s) - t1 )) s"
done
if [ -n "$saved" ]; then  # the build dir holds the last variant's objects: cur's again
  ninja -C "$build" blas_batched > "$O/variants-build-cur-again.log" 2>&1 || { echo "rebuild of cur failed"; rc=1; }
fi
for rep in $(seq "${REPS:-2}"); do
  for v in $variants; do
    name=${v%%:*} setting=
    [[ $v == *:* ]] && setting=${v#*:}
    library=/tmp/var-$name
    [ -n "$setting" ] && library=/tmp/var-cur
    [ -d "$library" ] || continue
    for p in ${PRECS:-r64 r32 c64 c32}; do
      env LD_LIBRARY_PATH="$library${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $setting "$build/bench/blas_batched_bench" --routine "${ROUTINES:-trsm}" --prec "$p" \
        --sizes "${SIZES:-4,8,16,32}" --device gpu --check --side "${SIDE:-left}" --backend "${BACKEND:-native-strided}" \
        --csv "$csv/var-$name-$p-$rep-$gpu.csv" > /tmp/variant-run.log 2>&1 || rc=1
      grep -E "^[a-z]+ +[a-z0-9]+ +[a-z-]+ +[0-9]" /tmp/variant-run.log | awk -v n="$name" '{print n, $1, $2, $3, $4, $12}' |
        tee -a "$O/variants-$gpu.txt"
      if grep -E "check failed|^blas_batched_bench:" /tmp/variant-run.log; then rc=1; fi
    done
  done
done
exit $rc
