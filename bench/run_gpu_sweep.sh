#!/usr/bin/env bash
# The standard GPU gemm sweep (device memory, ~1 GB of matrix data per call, square NN, alpha 1,
# beta 0.5), as committed under bench/results/. Produced on the device machine with
#   device tool:  bash tools/gpu-check.sh tune test sanitize bench
# (or alone:      bash bench/run_gpu_sweep.sh [out-dir] [build-dir]); then, here:
#   python3 bench/plot.py bench/results/gemm-sweep-<GPU>.csv
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/gpu-out}}
build=${2:-${BUILD:-$root/build-gpu}}
mkdir -p "$out"
bench=$build/bench/blas_batched_bench
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
csv=$out/gemm-sweep-$gpu.csv
rm -f "$csv"
run() { echo "+ $*"; "$bench" "$@" --device gpu --check --csv "$csv.part" && cat "$csv.part" >> "$csv.all"; rm -f "$csv.part"; }
rm -f "$csv.all"
sizes=2,4,8,16,24,32,48,64,96,128,192,256
# native-strided: the same matrices through BLAS_gemm_batched_strided_<prec>, side by side with
# the group API (native) and cublas<t>gemmStridedBatched (cublas-direct): issue 8's targets are
# its pct_bw (n = 2..32) and vs_cublas (every n) in these rows.
# native-devptr: the group API on pointer arrays and info in device memory (SPEC 9.2), against
# cublas<t>gemmBatched on the same device arrays (cublas-batched; notes: its time over native-devptr's).
for p in r64 r32; do
  run --routine gemm --prec $p --sizes $sizes \
    --backend native,native-strided,native-devptr,vendor,cublas-direct,cublas-batched
done
for p in c64 c32 r16; do
  run --routine gemm --prec $p --sizes $sizes --backend native,native-strided,vendor,cublas-direct
done
run --routine gemm --prec c16 --sizes 2,4,8,16,24,32,64,128 --backend native,native-strided,vendor
# One call, three groups (n = 8, 16, 32, a third of the bytes each), vs cublas<t>gemmGroupedBatched.
for p in r64 r32; do
  run --routine gemm --prec $p --sizes 8,16,32 --groups 3 --backend native,vendor,vendor-grouped
done
# Host overhead: 1000 problems of n = 4 (time_ms against kernel_ms, and against call_floor_ms:
# one upload, one empty kernel, one synchronize; native-strided's: no upload).
for p in r64 r32; do
  run --routine gemm --prec $p --sizes 4 --batch 1000 --backend native,native-strided,vendor --reps 50
done
# Non-blocking calls: 1000 strided calls of 1000 problems of n = 4 queued back to back, one
# synchronize, against 1000 cublas<t>gemmStridedBatched on the same stream (time per call).
for p in r64 r32; do
  run --routine gemm --prec $p --sizes 4 --batch 1000 --nonblocking-loop 1000
done
# Pointer arrays that are not evenly spaced (shuffled matrices): uploaded once per call, which
# floor_ms counts; cublas-direct takes them as device pointer arrays uploaded beforehand. (No
# native-strided here, nor in the grouped and variable-size calls: they are not one strided group.)
for p in r64 r32; do
  run --routine gemm --prec $p --sizes 2,4,8,16,32,64,128,256 --scatter --backend native,vendor,cublas-direct \
    --tag scatter
done
# Variable sizes: 100000 problems, each its own group, n uniform in 2..32, vs
# cublas<t>gemmGroupedBatched with the same groups (notes: its time over native's).
for p in r64 r32; do
  run --routine gemm --prec $p --variable-sizes 2:32 --batch 100000
done
# One CSV header, all rows.
awk 'NR == 1 || !/^device,/' "$csv.all" > "$csv" && rm -f "$csv.all"
echo "wrote $csv"
