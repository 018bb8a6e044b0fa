#!/usr/bin/env bash
# First command on a fresh machine: installs what is missing, builds, runs the demo (which
# prints where each group ran) and a short benchmark: on the GPU against cuBLAS when there is
# one, else on the host against OpenBLAS and the reference loop.
#   tools/quickstart.sh [build-dir]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bash "$root/tools/install-deps.sh"
# Only what runs here: the library, the demo and the bench (tools/test.sh adds the suites).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target blas_batched blas_batched_demo blas_batched_bench
"$build/blas_batched_demo"
echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  # Device memory: the CUDA backend against cuBLAS through the same calls (~1 GB per call).
  "$build/bench/blas_batched_bench" --device gpu --routine gemm --prec r64,r32 --sizes 4,8,16,32 \
    --backend native,vendor,cublas-direct --check
else
  echo "No GPU: benchmarking the host backend (data in host memory)."
  "$build/bench/blas_batched_bench" --device host --routine gemm,getrf,potrf --prec r64,r32 \
    --sizes 4,8,16 --batch 100000 --backend native,vendor,reference --check --reps 3
fi
