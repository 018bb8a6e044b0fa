#!/usr/bin/env bash
# A/B experiments on the trsm/trmm kernels: variants of the working tree built side by side on
# the GPU machine and timed in one run (kernel % of bandwidth, strided entry point), with the GPU
# trsm/trmm suite of the working tree. VARIANTS: "name:cuda-flags" entries, flags joined by
# commas (e.g. "base: cur: s64:-DBB_TRI_REGISTER_SLACK=64,-DBB_TRI_X=1"); "base" overlays the
# files under .exp/base (repository paths, e.g. the previous commit's: git show
# HEAD:src/cuda/tri/tri.cu > .exp/base/src/cuda/tri/tri.cu; .exp is git-ignored: carry it),
# "cur" is the working tree and also runs the suite. REPS, TRIPREC, TRISIZES, TRISIDE, TRIROUT
# pick the rows. Exits 1 when a build, the suite or a --check fails.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
O=${OUT:-$root/gpu-out}; mkdir -p "$O"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
variants=${VARIANTS:-base: cur:}
rc=0
for v in $variants; do
  [[ $v == *:* ]] || { echo "VARIANTS entry '$v' lacks ':'"; exit 1; }
done
build_one() {
  local name=$1 flags=${2//,/ } dir=/tmp/src-$1
  rm -rf "$dir" "/tmp/b-$name"; mkdir -p "$dir"  # never time a stale build
  tar -C "$root" --exclude='./build*' --exclude=./.devdeps -cf - . | tar -C "$dir" -xf -
  if [ "$name" = base ]; then
    [ -d "$root/.exp/base" ] || { echo "base: no .exp/base (carry it)"; return 1; }
    cp -r "$root"/.exp/base/. "$dir/"
  fi
  cmake -S "$dir" -B /tmp/b-$name -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="$flags" > /tmp/cfg-$name.log 2>&1
  ninja -C /tmp/b-$name -j ${JOBS:-6} blas_batched_bench $([ "$name" = cur ] && echo conformance_gpu_trsm_trmm) \
    > /tmp/build-$name.log 2>&1 || { echo "build $name failed"; grep -m5 error /tmp/build-$name.log; return 1; }
}
t0=$(date +%s)
pids=()
for v in $variants; do build_one "${v%%:*}" "${v#*:}" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
echo "builds $(( $(date +%s) - t0 )) s"
# "cur" (the working tree) also runs its GPU trsm/trmm suite (TESTFILTER: a gtest filter).
if [ -x /tmp/b-cur/conformance/conformance_gpu_trsm_trmm ]; then
  ${TESTWRAP:-} /tmp/b-cur/conformance/conformance_gpu_trsm_trmm --gtest_filter="${TESTFILTER:-*}" > "$O/tests-cur.log" 2>&1 || rc=1
  echo "tests: $(grep -E '^\[  (PASSED|FAILED)|ERROR SUMMARY' "$O/tests-cur.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED' "$O/tests-cur.log" | head
fi
for rep in $(seq ${REPS:-2}); do
  for v in $variants; do
    name=${v%%:*}
    bench=/tmp/b-$name/bench/blas_batched_bench
    [ -x "$bench" ] || { echo "$name: no bench binary"; rc=1; continue; }
    for p in ${TRIPREC:-r64 r32 c64 c32}; do
      "$bench" --routine ${TRIROUT:-trsm} --prec $p --sizes ${TRISIZES:-4,8,16,32} --device gpu --check \
        --side ${TRISIDE:-left} --backend native-strided --csv "$O/var-$name-$p-$rep-$gpu.csv" > /tmp/run.log 2>&1 || rc=1
      grep -E "^(trsm|trmm) +[a-z0-9]+ +[a-z-]+ +[0-9]" /tmp/run.log | awk -v n=$name '{print n, $1, $2, $3, $4, $12}'
      if grep -E "check failed|^blas_batched_bench:" /tmp/run.log; then rc=1; fi
    done
  done
done
exit $rc
