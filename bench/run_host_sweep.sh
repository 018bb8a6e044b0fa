#!/usr/bin/env bash
# The host-backend sweep behind bench/results/host-*.csv: batches of 100k problems of
# n = 4, 8, 16 in r64 and r32 for gemm, getrf and potrf, every backend, checked against the
# reference; host mode even where a GPU is usable (--device host). Run on an otherwise idle machine.
#   bench/run_host_sweep.sh [build-dir] [out.csv]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/bench/results/host-$(hostname -s)-$(nproc)cores.csv}
mkdir -p "$(dirname "$out")"
"$build/bench/blas_batched_bench" --device host --routine gemm,getrf,potrf --prec r64,r32 --sizes 4,8,16 \
  --batch 100000 --backend native,vendor,reference --check --reps 5 --csv "$out"
echo "wrote $out"
