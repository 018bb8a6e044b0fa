#!/usr/bin/env bash
# SASS of the device kernels here, without a GPU: cuobjdump and nvdisasm come from PyPI
# (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm; unpacked once into .sass-tools/, git-ignored).
# Compiles one .cu of the library to a cubin for sm_90 and prints, for each function whose
# mangled name matches REGEX, its static instruction count and the opcodes it uses most.
#   bash tools/micro/sass.sh src/cuda/lu/lu_r32.cu 'getrf_registerIfLi8E'      (SASS=1: the listing)
# Static counts compare variants of fully unrolled kernels; cold paths (slow-path division,
# a run search no launch takes) are counted too, so they are not what a warp executes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$root/.sass-tools
if [ ! -x "$tools/cuobjdump" ] || [ ! -x "$tools/nvdisasm" ]; then
  mkdir -p "$tools/whl"
  pip download -q --no-deps nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm -d "$tools/whl"
  for w in "$tools"/whl/*.whl; do python3 -m zipfile -e "$w" "$tools/x"; done
  find "$tools/x" -type f \( -name cuobjdump -o -name nvdisasm \) -exec cp {} "$tools/" \;
  chmod +x "$tools/cuobjdump" "$tools/nvdisasm"
fi
src=${1:?a .cu file} regex=${2:?a function name regex}
cubin=$(mktemp --suffix .cubin)
trap 'rm -f "$cubin"' EXIT
/usr/local/cuda/bin/nvcc -DBB_HAVE_CUSOLVER=1 -I"$root/include" -O3 -DNDEBUG \
  --generate-code=arch=compute_90,code=sm_90 -Xcompiler=-fPIC -std=c++17 -x cu -cubin "$src" -o "$cubin"
PATH=$tools:$PATH cuobjdump -sass "$cubin" | python3 -c '
import re, sys, collections, os
regex, listing = re.compile(sys.argv[1]), os.environ.get("SASS") == "1"
name, body = None, []
def report():
    if name is None or not regex.search(name): return
    ops = collections.Counter(re.match(r"(?:@!?U?P\w+\s+)?([A-Z0-9_]+)", b).group(1) for b in body)
    print(f"{name}: {len(body)} instructions; " + ", ".join(f"{o} {n}" for o, n in ops.most_common(14)))
    if listing: print("\n".join(body))
for line in sys.stdin:
    m = re.search(r"Function : (\S+)", line)
    if m: report(); name, body = m.group(1), []; continue
    m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
    if m and name and not m.group(1).startswith("NOP"): body.append(m.group(1))
report()
' "$regex"
