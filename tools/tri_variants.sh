#!/usr/bin/env bash
# A/B experiments on the trsm/trmm kernels: variants of the working tree built side by side on
# the GPU machine and timed in one run (kernel % of bandwidth, strided entry point), with the GPU
# trsm/trmm suite of the working tree. VARIANTS: "name:cuda-flags" pairs (flags such as
# -DBB_TRI_REGISTER_SLACK=64); "base" overlays the files under .exp/base (repository paths, e.g.
# the previous commit's: git show HEAD:src/cuda/tri/tri.cu > .exp/base/src/cuda/tri/tri.cu),
# .exp is git-ignored: carry it), "cur" is the working tree and also runs the suite. REPS,
# TRIPREC, TRISIZES, TRISIDE, TRIROUT pick the rows.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$root/gpu-out}; mkdir -p "$O"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
build_one() {
  local name=$1 flags=$2 dir=/tmp/src-$1
  rm -rf "$dir"; mkdir -p "$dir"
  tar -C "$root" --exclude='./build*' --exclude=./.devdeps -cf - . | tar -C "$dir" -xf -
  [ "$name" = base ] && cp -r "$root"/.exp/base/. "$dir/"
  cmake -S "$dir" -B /tmp/b-$name -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="$flags" > /tmp/cfg-$name.log 2>&1
  ninja -C /tmp/b-$name -j ${JOBS:-6} blas_batched_bench $([ "$name" = cur ] && echo conformance_gpu_trsm_trmm) \
    > /tmp/build-$name.log 2>&1 || { echo "build $name failed"; grep -m5 error /tmp/build-$name.log; }
}
t0=$(date +%s)
for v in ${VARIANTS:-base:}; do build_one "${v%%:*}" "${v#*:}" & done; wait
echo "builds $(( $(date +%s) - t0 )) s"
# "cur" (the working tree) also runs its GPU trsm/trmm suite (TESTFILTER: a gtest filter).
if [ -x /tmp/b-cur/conformance/conformance_gpu_trsm_trmm ]; then
  ${TESTWRAP:-} /tmp/b-cur/conformance/conformance_gpu_trsm_trmm --gtest_filter="${TESTFILTER:-*}" > "$O/tests-cur.log" 2>&1
  echo "tests exit $?: $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' "$O/tests-cur.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$O/tests-cur.log" | head
fi
for rep in $(seq ${REPS:-2}); do
for v in ${VARIANTS:-base:}; do
  name=${v%%:*}
  for p in ${TRIPREC:-r64 r32 c64 c32}; do
    /tmp/b-$name/bench/blas_batched_bench --routine ${TRIROUT:-trsm} --prec $p --sizes ${TRISIZES:-4,8,16,32} --device gpu --check \
      --side ${TRISIDE:-left} --backend native-strided --csv "$O/var-$name-$p-$rep-$gpu.csv" 2>&1 |
      grep -E "^(trsm|trmm) +[a-z0-9]+ +[a-z-]+ +[0-9]" | awk -v n=$name '{print n, $1, $2, $3, $4, $12}'
  done
done
done
