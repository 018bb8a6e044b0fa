#!/usr/bin/env bash
# Pack what a GPU job runs, built here, so that a cold device machine skips its own build (about
# 120 s of device time a call): the library, the bench and the named test binaries, stripped and
# xz-compressed into .prebuilt/<name>.tar.xz (git-ignored; about 12 MB for the library and the benches).
#   bash tools/prebuilt.sh [-n NAME] [-B BUILD] [TEST_BINARY...]     e.g. conformance_gpu_gemm
# On the device: carry .prebuilt (and .devdeps), then PREBUILT=.prebuilt/a.tar.xz bash tools/gpu-check.sh ...
# (unpacked into BUILD, build-gpu by default; the stages that run binaries work, the ctest-based
# ones need the device's own build). For tools/ab_source.sh, pack B from the other tree as -n b
# and pass ABPREBUILT=.prebuilt/b.tar.xz (several: B, C, ... in one run).
# The device tool carries at most 64 MiB with the tracked tree (about 5 MB): four archives of
# about 11 MB and the whole .devdeps (20 MB) do not fit. A prebuilt run needs only .devdeps'
# runtime packages: the *-dev_*.deb (10 MB) can wait outside it while such a run is carried.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=a build=$root/build
while getopts n:B: o; do
  case $o in n) name=$OPTARG ;; B) build=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
ninja -C "$build" blas_batched blas_batched_bench blas_batched_tri_large "$@" > /dev/null
# An object compiled outside ninja has no recorded header dependencies and is never rebuilt
# when a header changes (s42: a stale getrf.cpp.o with an older LuConfig enum broke c64 getrf).
if stale=$(ninja -C "$build" -t deps | grep "#deps 0"); then
  echo "objects without recorded dependencies (touch their sources and rerun):" >&2; echo "$stale" >&2; exit 1
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bench" "$stage/conformance" "$root/.prebuilt"
lib=$(readlink -f "$build/libblas_batched.so.0")
cp "$lib" "$stage/libblas_batched.so.0"
cp "$build/bench/blas_batched_bench" "$build/bench/blas_batched_tri_large" "$stage/bench/"
for t; do cp "$build/conformance/$t" "$stage/conformance/"; done
strip --strip-unneeded "$stage/libblas_batched.so.0" "$stage"/bench/* "$stage"/conformance/* 2> /dev/null || true
git -C "$root" rev-parse --short HEAD > "$stage/REVISION"
git -C "$root" diff --quiet HEAD -- src include || echo "+ uncommitted changes" >> "$stage/REVISION"
tar -C "$stage" -cJf "$root/.prebuilt/$name.tar.xz" .
echo "$root/.prebuilt/$name.tar.xz: $(du -h "$root/.prebuilt/$name.tar.xz" | cut -f1), $(tr '\n' ' ' < "$stage/REVISION")"
