#!/usr/bin/env python3
"""Issue 9's table from device getrf / getri / getrf_getri bench CSVs (bench --csv; the jobs in
tools/micro/experiments/closing-bench.sh): per routine, precision and n, the kernel's % of copy
bandwidth and its ratio to cuBLAS (native-strided; the inverse: native-devptr, its kernels on
the same device pointer arrays as cuBLAS's), the group API's whole call as % of its floor and
against cuBLAS (native), and for the inverse the ratio to getrf + getri as two calls of the
group API (native-two-calls against native, both on host pointer arrays).
Ratios are cuBLAS's time (getriBatched with its copy back into A) over the library's.
residual: the largest scaled residual of the library's rows (bench --check: about 10 or less is right).
Usage: tools/lu_table.py [--compact] CSV...   (markdown on stdout)"""
import csv
import sys

compact = '--compact' in sys.argv
rows = {}
for path in (a for a in sys.argv[1:] if a != '--compact'):
    for r in csv.DictReader(open(path)):
        rows[(r['routine'], r['prec'], int(r['n']), r['backend'])] = r


def num(r, f):
    return float(r[f]) if r and r.get(f) else None


def cell(v, fmt):
    return fmt.format(v) if v is not None else '-'


def compact_tables():
    # One table per routine, precisions down and orders across; a cell: the kernel's % of copy
    # bandwidth / its ratio to cuBLAS (the inverse: / the group API call's ratio to two calls).
    for routine in ('getrf', 'getri', 'getrf_getri'):
        precs = sorted({k[1] for k in rows if k[0] == routine}, key=lambda p: (p[1:], p), reverse=True)
        orders = sorted({k[2] for k in rows if k[0] == routine})
        if not precs:
            continue
        kernel_row = 'native-devptr' if routine == 'getrf_getri' else 'native-strided'
        print(f'\n### {routine}: kernel % of copy bandwidth / x cuBLAS' +
              (' / x two calls' if routine == 'getrf_getri' else '') + '\n')
        print('| prec | ' + ' | '.join(str(n) for n in orders) + ' |')
        print('|---' * (len(orders) + 1) + '|')
        for prec in precs:
            cells = []
            for n in orders:
                get = lambda b: rows.get((routine, prec, n, b))
                k, vendor = get(kernel_row), get('cublas-direct')
                if not k:
                    cells.append('')
                    continue
                text = cell(num(k, 'kernel_pct_bw'), '{:.0f}')
                if vendor:
                    text += ' / ' + cell(num(vendor, 'time_ms') / num(k, 'kernel_ms'), '{:.2f}')
                elif routine == 'getrf_getri':
                    text += ' / -'  # no cuBLAS routine in this precision
                if routine == 'getrf_getri' and get('native-two-calls') and get('native'):
                    text += ' / ' + cell(num(get('native-two-calls'), 'time_ms') / num(get('native'), 'time_ms'), '{:.2f}')
                cells.append(text)
            print(f'| {prec} | ' + ' | '.join(cells) + ' |')


if compact:
    compact_tables()
    sys.exit(0)
for routine in ('getrf', 'getri', 'getrf_getri'):
    keys = sorted({(k[1], k[2]) for k in rows if k[0] == routine}, key=lambda k: (k[0][1:], k[0], k[1]))
    if not keys:
        continue
    if routine == 'getrf_getri':
        print('\n### the inverse in one call (device pointer arrays)\n')
        print('| prec | n | kernel % bw | kernel x cuBLAS | group API call x two calls | group API call x cuBLAS | residual |')
        print('|---|---|---|---|---|---|---|')
    else:
        print(f'\n### {routine}\n')
        print('| prec | n | kernel % bw | kernel x cuBLAS | strided call % floor | group API call % floor | group API x cuBLAS | residual |')
        print('|---|---|---|---|---|---|---|---|')
    for prec, n in keys:
        get = lambda b: rows.get((routine, prec, n, b))
        vendor = get('cublas-direct')
        vendor_ms = num(vendor, 'time_ms')
        errors = [num(get(b), 'error') for b in ('native', 'native-strided', 'native-devptr') if get(b)]
        check = cell(max(e for e in errors if e is not None), '{:.2f}') if any(e is not None for e in errors) else '-'
        if routine == 'getrf_getri':
            dev, two = get('native-devptr'), get('native-two-calls')
            kx = vendor_ms / num(dev, 'kernel_ms') if vendor_ms and dev else None
            gr = get('native')  # native-two-calls is the group API on host arrays too
            tx = num(two, 'time_ms') / num(gr, 'time_ms') if two and gr else None
            gx = vendor_ms / num(get('native'), 'time_ms') if vendor_ms and get('native') else None
            print(f"| {prec} | {n} | {cell(num(dev, 'kernel_pct_bw'), '{:.0f}')} | {cell(kx, '{:.2f}')} | "
                  f"{cell(tx, '{:.2f}')} | {cell(gx, '{:.2f}')} | {check} |")
        else:
            st, gr = get('native-strided'), get('native')
            kx = vendor_ms / num(st, 'kernel_ms') if vendor_ms and st else None
            gx = vendor_ms / num(gr, 'time_ms') if vendor_ms and gr else None
            print(f"| {prec} | {n} | {cell(num(st, 'kernel_pct_bw'), '{:.0f}')} | {cell(kx, '{:.2f}')} | "
                  f"{cell(num(st, 'pct_floor'), '{:.0f}')} | {cell(num(gr, 'pct_floor'), '{:.0f}')} | "
                  f"{cell(gx, '{:.2f}')} | {check} |")