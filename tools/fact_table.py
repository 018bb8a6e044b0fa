#!/usr/bin/env python3
"""Summary of device potrf/geqrf bench CSVs (bench --csv): per routine, precision and n, the
kernel's % of copy bandwidth (native-devptr), the whole call against cuSOLVER/cuBLAS called
directly (native-devptr, native-strided, native), and the strided call's % of its floor.
Usage: tools/fact_table.py fact-*.csv"""
import csv
import sys

rows = {}
for path in sys.argv[1:]:
    for r in csv.DictReader(open(path)):
        rows[(r['routine'], r['prec'], int(r['n']), r['backend'])] = r
keys = sorted({k[:3] for k in rows})
print('| routine | prec | n | kernel %bw (devptr) | vs vendor: devptr / strided / group API | strided %floor |')
print('|---|---|---|---|---|---|')
for rt, p, n in keys:
    def get(b, f):
        r = rows.get((rt, p, n, b))
        return r[f] if r and r[f] else '-'
    print(f"| {rt} | {p} | {n} | {get('native-devptr', 'kernel_pct_bw')} | {get('native-devptr', 'vs_cublas')} / "
          f"{get('native-strided', 'vs_cublas')} / {get('native', 'vs_cublas')} | {get('native-strided', 'pct_floor')} |")
