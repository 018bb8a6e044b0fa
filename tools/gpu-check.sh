#!/usr/bin/env bash
# One job for the GPU machine: build, run the whole test suite (GPU tests included), and run the
# benchmark sweep; logs and CSVs go to $OUT (or ./gpu-out). Usage from the device tool:
#   bash tools/gpu-check.sh            (add `source .devdeps/device-env.sh;` first if the
#                                       machine lacks OpenBLAS/LAPACK; see shared/tools)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1 | tr ' ' '-')
gpu=${gpu:-nogpu}
{ nvidia-smi 2>&1 | head -15; nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1; } > "$out/machine-$gpu.txt"
build=$root/build-gpu
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" -- -k 0 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
t1=$(date +%s)
(cd "$build" && ctest -j 8 --output-on-failure --timeout 900 > "$out/ctest-$gpu.log" 2>&1); rc=$?
t2=$(date +%s)
"$build/bench/blas_batched_bench" --routine gemm,getrf,potrf --prec r64,r32 --sizes 4,8,16 --batch 100000 \
  --backend native,vendor,reference --check --reps 5 --csv "$out/host-bench-$gpu-host.csv" > "$out/bench-$gpu.log" 2>&1
echo "build $((t1 - t0)) s, tests $((t2 - t1)) s, ctest rc $rc"
grep -E "tests passed|tests failed|Failed|SKIP" "$out/ctest-$gpu.log" | tail -15
tail -20 "$out/bench-$gpu.log"
exit $rc
