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
out = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", obj] + offs, capture_output=True, text=True).stdout
# addr2line -i prints one or more (function, file:line) pairs per address; a trailing marker splits them.
out2 = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", obj] + [x for o in offs for x in (o, "0")],
                      capture_output=True, text=True).stdout.splitlines()
inner, inclusive, lines = collections.Counter(), collections.Counter(), collections.Counter()
i, k = 0, 0
while k < len(offs):
    chain = []
    while i + 1 < len(out2) and not (out2[i] == "??" and out2[i + 1].startswith("??:")):
        chain.append((out2[i], out2[i + 1]))
        i += 2
    i += 2  # the "0" marker's ?? pair
    n = counts[offs[k]]
    if chain:
        fn = chain[0][0].split("(")[0][-110:]
        inner[fn] += n
        lines[chain[0][1].rsplit("/", 1)[-1].split(" ")[0]] += n
        for f in {c[0].split("(")[0][-110:] for c in chain}:
            inclusive[f] += n
    k += 1
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
