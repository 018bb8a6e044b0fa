#!/usr/bin/env bash
# A/B of one source file on the GPU machine: the tree as it is (A) against the same build with
# ABFILE replaced by ABALT (B), the same bench commands on both in one run, so that a kernel
# change is timed against its predecessor on the same card. B's build starts from a copy of A's,
# so only what depends on ABFILE recompiles; the binaries find their library through
# LD_LIBRARY_PATH (their RUNPATH names A's build folder).
#   ABFILE=src/cuda/tri/tri_leaf.cuh ABALT=tools/ab/tri_leaf.row-form.cuh \
#   ABCMDS='--routine trsm --prec r64 --sizes 32,64 --backend native,cublas-direct;--routine potrf ...' \
#   OUT=... BUILD=build-gpu bash tools/ab_source.sh
# ABALT: a file in the tree that git does not ignore (the device tool copies it). ABCMDS: bench
# argument lists separated by ';' (--device gpu is added). ABLARGE=1 also runs
# blas_batched_tri_large 8192 512 on both. Output: $OUT/ab-<gpu>.log, rows tagged A or B; the
# runs go A, B, A, so that drift on the card shows. ab-build.log opens with CMake's complaint
# about the copied cache's folder: expected, B builds all the same. ABPREBUILT=.prebuilt/b.tar.xz
# (tools/prebuilt.sh -n b, from B's tree, carried): B as built here, no ABFILE/ABALT; with A from
# PREBUILT too (tools/gpu-check.sh none first), nothing builds on the device. Several archives
# (ABPREBUILT=".prebuilt/b.tar.xz .prebuilt/c.tar.xz"): variants B, C, ... in one run, A, B, C, ..., A.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
build=${BUILD:-$root/build-gpu}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 | tr ' ' '-')
: "${ABCMDS:?ABCMDS: bench argument lists}"
[ -n "${ABPREBUILT:-}" ] || : "${ABFILE:?ABFILE: the file to swap}" "${ABALT:?ABALT: its alternative}"
mkdir -p "$out"
log=$out/ab-${gpu:-nogpu}.log
alt_build=$build-ab
t0=$(date +%s)
rm -rf "$alt_build"
if [ -n "${ABPREBUILT:-}" ]; then
  # B (C, ...) built on the developer's machine (tools/prebuilt.sh -n b): nothing to build here.
  tags=(B C D E F G) variants=() i=0
  for archive in $ABPREBUILT; do
    tag=${tags[$i]}
    dir=$alt_build${i/#0/}  # B in $alt_build, C in ${alt_build}1, ...
    i=$((i + 1))
    rm -rf "$dir" && mkdir -p "$dir" && tar -C "$dir" -xJf "$root/$archive" || exit 1
    variants+=("$tag:$dir")
    echo "$tag prebuilt: $(tr '\n' ' ' < "$dir/REVISION")"
  done
else
cp -a "$build" "$alt_build"
cp "$root/$ABFILE" "$out/ab-saved" && cp "$root/$ABALT" "$root/$ABFILE"
trap 'cp "$out/ab-saved" "$root/$ABFILE"' EXIT  # A's file back even if the job is stopped
cmake --build "$alt_build" -j "$(nproc)" --target blas_batched_bench blas_batched_tri_large > "$out/ab-build.log" 2>&1
built=$?
cp "$out/ab-saved" "$root/$ABFILE"  # A's file back, whatever happened
[ $built = 0 ] || { grep -E "error" "$out/ab-build.log" | head -20; exit 1; }
echo "B built in $(( $(date +%s) - t0 )) s"
fi
LD_LIBRARY_PATH=$alt_build ldd "$alt_build/bench/blas_batched_bench" | grep -F libblas_batched
IFS=';' read -ra cmds <<< "$ABCMDS"
run_all() {  # run_all TAG BUILD_DIR
  for c in "${cmds[@]}"; do
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$2 "$2/bench/blas_batched_bench" $c --device gpu 2>&1 | sed "s/^/$1 /"
  done
  [ "${ABLARGE:-0}" = 1 ] && LD_LIBRARY_PATH=$2 "$2/bench/blas_batched_tri_large" 8192 512 2>&1 | sed "s/^/$1 /"
}
[ -n "${ABPREBUILT:-}" ] || variants=("B:$alt_build")
{ run_all A "$build"; for v in "${variants[@]}"; do run_all "${v%%:*}" "${v#*:}"; done; run_all A "$build"; } > "$log" 2>&1
grep -E "^[A-G] [a-z_]+ +[a-z0-9]+ +[a-z-]+ +[0-9]|^[A-G] .*(dgemm|trsm|trmm|check failed)" "$log"
