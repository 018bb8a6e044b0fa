#!/usr/bin/env bash
# Builds the library, the conformance suites and the examples, then runs every test
# (CPU here; tests labelled `gpu` report SKIP where no GPU is present).
#   tools/test.sh [build-dir]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$jobs"
cd "$build"
ctest -j "$jobs" --output-on-failure --timeout 900
