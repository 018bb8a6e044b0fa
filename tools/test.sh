#!/usr/bin/env bash
# Builds the library, the conformance suites and the examples, then runs every test (CPU here;
# tests labelled `gpu` report SKIP where no GPU is present). Then a host-only copy built under
# AddressSanitizer and UndefinedBehaviorSanitizer runs the CPU suites again (the bad-argument
# and randomized-argument suites among them); any sanitizer report fails its test.
#   tools/test.sh [build-dir]      (default: build; the sanitizer build goes to <build-dir>-sanitize)
#   BB_SKIP_SANITIZE=1 tools/test.sh   skips the second half
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON
cmake --build "$build" -j "$jobs"
(cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 900)
[ "${BB_SKIP_SANITIZE:-0}" = 1 ] && exit 0

san="$build-sanitize"
cmake -S "$root" -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON \
  -DBLAS_BATCHED_CUDA=OFF -DBLAS_BATCHED_SANITIZE=ON
cmake --build "$san" -j "$jobs"
# The install/link and compiler checks build programs without the sanitizer runtime: not here.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
(cd "$san" && ctest -j "$jobs" -L cpu -E 'example_install_and_link|header_and_demo_compilers' \
  --output-on-failure --timeout 1800)
