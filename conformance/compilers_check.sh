#!/usr/bin/env bash
# The public header and the C demo with every compiler a user might bring: gcc and clang as C11,
# g++ and clang++ as C++17, all with -pedantic-errors; each program linked against the library
# and run. Exit 77 (skipped) when clang is not installed (tools/install-deps.sh installs it).
#   conformance/compilers_check.sh <source-root> <library-dir> <scratch-dir>
set -euo pipefail
src=$1 lib=$2 scratch=$3
mkdir -p "$scratch"
command -v clang >/dev/null && command -v clang++ >/dev/null || { echo "clang not found: skipped"; exit 77; }
inc="-I$src/include"
link="-L$lib -lblas_batched -Wl,-rpath,$lib"
for cc in gcc clang; do
  echo "== $cc: header (C11) and demo.c"
  $cc -std=c11 -Wall -Wextra -pedantic-errors $inc "$src/conformance/header_check.c" $link -o "$scratch/header_$cc"
  "$scratch/header_$cc"
  $cc -std=c11 -Wall -Wextra -pedantic-errors $inc "$src/examples/demo.c" $link -lm -o "$scratch/demo_$cc"
  "$scratch/demo_$cc" > "$scratch/demo_$cc.log" || { cat "$scratch/demo_$cc.log"; exit 1; }
  tail -1 "$scratch/demo_$cc.log"
done
for cxx in g++ clang++; do
  echo "== $cxx: header (C++17)"
  $cxx -std=c++17 -Wall -Wextra -pedantic-errors $inc "$src/conformance/header_check.cpp" $link -o "$scratch/header_$cxx"
  "$scratch/header_$cxx"
done
echo "all compilers OK"
