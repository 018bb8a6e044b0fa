#!/usr/bin/env bash
# First command on a fresh machine: installs what is missing, builds, runs the demo (which
# prints where each group ran) and a short benchmark against the vendor and reference paths.
#   tools/quickstart.sh [build-dir]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bash "$root/tools/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
"$build/blas_batched_demo"
echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU found: the CUDA backend comes with the next release; benchmarking host data below."
fi
"$build/bench/blas_batched_bench" --routine gemm,getrf,potrf --prec r64,r32 --sizes 4,8,16 \
  --batch 100000 --backend native,vendor,reference --check --reps 3
