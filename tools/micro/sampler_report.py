#!/usr/bin/env python3
"""Symbolizes tools/micro/sampler.c's samples of one object against its unstripped build.
   python3 tools/micro/sampler_report.py samples.txt build/libblas_batched.so.0 [libblas_batched] [top]
Prints the innermost function (inlined ones included) by samples, and the inclusive count of
every function on the inline chain (what a source-level phase such as describe() costs)."""
import collections, subprocess, sys

samples, obj = sys.argv[1], sys.argv[2]
match = sys.argv[3] if len(sys.argv) > 3 else "libblas_batched"
top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
counts, total, per_object = {}, 0, collections.Counter()
for line in open(samples):
    n, name, off = line.split()
    n = int(n)
    total += n
    per_object[name.rsplit("/", 1)[-1]] += n
    if match in name:
        counts[off] = counts.get(off, 0) + n
print(f"{total} samples; by object:")
for name, n in per_object.most_common(8):
    print(f"  {100.0 * n / total:5.1f} %  {name}")
offs = list(counts)
# -a prints each address first ("0x..."), then its inline chain as (function, file:line) pairs,
# innermost first; an address without symbols prints one "??" pair.
out = subprocess.run(["addr2line", "-a", "-f", "-i", "-C", "-e", obj] + offs,
                     capture_output=True, text=True).stdout.splitlines()
chains, i = {}, 0
while i < len(out):
    address, i = int(out[i], 16), i + 1
    chain = []
    while i + 1 < len(out) and not out[i].startswith("0x"):
        if out[i] != "??":
            chain.append((out[i], out[i + 1]))
        i += 2
    chains[address] = chain
inner, inclusive, lines = collections.Counter(), collections.Counter(), collections.Counter()
for off in offs:
    n, chain = counts[off], chains.get(int(off, 16), [])
    if not chain:
        inner["(no symbol)"] += n
        continue
    inner[chain[0][0].split("(")[0][-110:]] += n
    lines[chain[0][1].rsplit("/", 1)[-1].split(" ")[0]] += n
    for f in {c[0].split("(")[0][-110:] for c in chain}:
        inclusive[f] += n
mine = sum(counts.values())
print(f"\n{mine} samples in {match} ({100.0 * mine / max(total, 1):.1f} %); innermost functions:")
for f, n in inner.most_common(top):
    print(f"  {100.0 * n / mine:5.1f} %  {f}")
print("\ninclusive (inline chains):")
for f, n in inclusive.most_common(top):
    print(f"  {100.0 * n / mine:5.1f} %  {f}")
print("\nsource lines:")
for f, n in lines.most_common(top):
    print(f"  {100.0 * n / mine:5.1f} %  {f}")
