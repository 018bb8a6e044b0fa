#!/usr/bin/env bash
# A/B of runtime switches in one GPU run, from a prebuilt archive (tools/prebuilt.sh; no build
# on the device): each variant runs the bench with its environment, and a table of kernel ms /
# whole-call ms (kernel % of copy bandwidth) per precision and order comes out, side by side.
#   VARIANTS="name:VAR=val,VAR=val ..." (name alone: no setting), e.g.
#     VARIANTS="unrolled:BLAS_BATCHED_LU_ROLLED_MIN=33 rolled:BLAS_BATCHED_LU_ROLLED_MIN=17"
#   ROUTINE (getrf), PRECS (c64 c32), SIZES (17,20,24,28,32), BACKEND (native-strided; the
#   inverse in one call needs native-devptr), VENDOR=1: a cublas-direct row too, BENCH_ARGS: more
#   bench options on every run (e.g. --row-major).
# From the device tool: export BUILD=$PWD/build-gpu; source .devdeps/device-env.sh;
# PREBUILT=.prebuilt/a.tar.xz bash tools/gpu-check.sh none; then this script (carry .devdeps,
# .prebuilt). CSVs and logs: $OUT/env-ab-<routine>-<gpu>.tgz. Exits 1 when a run or --check fails.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-gpu}
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bench=$build/bench/blas_batched_bench
O=${OUT:-$root/gpu-out}; mkdir -p "$O"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr ' ' '-')
routine=${ROUTINE:-getrf} sizes=${SIZES:-17,20,24,28,32}
dir=$(mktemp -d)
rc=0
run() {  # name backend [VAR=val ...]
  local name=$1 backend=$2; shift 2
  for p in ${PRECS:-c64 c32}; do
    env "$@" "$bench" --routine "$routine" --prec "$p" --sizes "$sizes" --device gpu --reps 5 ${BENCH_ARGS:-} \
      $([ "$backend" = cublas-direct ] || echo --check) --backend "$backend" --csv "$dir/v-$name-$p.csv" > "$dir/v-$name-$p.log" 2>&1 ||
      { echo "$name $p: the bench failed"; rc=1; }
    # A row skipped on a device error is a failure (the potrf rolled A/B of s32 hid one that way).
    if grep -E "check failed|^blas_batched_bench:|returned BLAS_BATCHED_ERR_DEVICE" "$dir/v-$name-$p.log"; then rc=1; fi
    grep -E "skipped, returned" "$dir/v-$name-$p.log" | grep -v ERR_DEVICE | sed "s/^/$name: /"
  done
}
for v in ${VARIANTS:?VARIANTS names the variants}; do
  name=${v%%:*} settings=
  [[ $v == *:* ]] && settings=${v#*:}
  run "$name" "${BACKEND:-native-strided}" ${settings//,/ }
done
[ -n "${VENDOR:-}" ] && run cublas cublas-direct
python3 - "$dir" <<'PY' | tee "$O/env-ab-$routine-$gpu.txt"
import csv, sys, glob, os, collections
d = sys.argv[1]
t, names = collections.defaultdict(dict), []
for f in sorted(glob.glob(f"{d}/v-*.csv")):
    name, p = os.path.basename(f)[2:-4].rsplit("-", 1)
    names += [name] if name not in names else []
    for r in csv.DictReader(open(f)):
        t[(p, int(r["n"]))][name] = f"{float(r['kernel_ms'] or 'nan'):.3f}/{float(r['time_ms']):.3f}({r['kernel_pct_bw']})"
print("kernel ms / whole-call ms (kernel % of copy bandwidth)")
print("prec n " + " ".join(names))
for key in sorted(t):
    print(*key, *(t[key].get(x, "-") for x in names))
PY
tar czf "$O/env-ab-$routine-$gpu.tgz" -C "$dir" . && rm -rf "$dir"
exit $rc
