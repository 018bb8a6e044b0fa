#!/usr/bin/env bash
# The device gemm tuning sweep: builds the library and tools/tune_gemm.cpp, times every kernel
# configuration and cuBLAS per precision and n, and writes the winners as
# src/cuda/gemm/gemm_tuning.inc (next to the raw CSV). Run on the GPU machine, e.g. with the
# device tool:  bash tools/tune_gemm.sh   (outputs under $OUT; copy the .inc back into src/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
# Its own build: every kernel configuration compiled (a normal build has only the table's).
build=${TUNE_BUILD:-/tmp/bb-tune}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DBLAS_BATCHED_GEMM_ALL_CONFIGS=ON > "$out/tune-configure.log"
cmake --build "$build" --target blas_batched -j "$(nproc)" > "$out/tune-build.log"
g++ -O2 -std=c++17 -I"$root/include" -I/usr/local/cuda/include "$root/tools/tune_gemm.cpp" \
  -L"$build" -lblas_batched -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,"$build" -o "$build/tune_gemm"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
"$build/tune_gemm" "${GB:-0.5}" > "$out/gemm-tuning-$gpu.csv"
python3 "$root/tools/tuning_table.py" "$out/gemm-tuning-$gpu.csv" "$gpu" > "$out/gemm_tuning.inc"
cat "$out/gemm_tuning.inc"
