#!/usr/bin/env python3
"""Plots blas_batched_bench CSVs.

For each device x routine x precision: GFLOP/s against n and % of the copy bandwidth against n
(two panels), one line per backend; dashed lines show the device-side (kernel_ms) figures where
the CSV has them. Calls of several groups get a bar chart per routine; small-batch rows (host
overhead case), shuffled-pointer (scatter), variable-size and non-blocking loop rows are listed on
stdout, with the floor columns (floor_ms, pct_floor) where the CSV has them.

    python3 bench/plot.py bench/results/gemm-sweep-NVIDIA-H100-80GB-HBM3.csv [more.csv ...]
                          [--out DIR] [--overview-only]

Writes DIR/<csv stem>-<routine>-<prec>.png, DIR/<csv stem>-<routine>.png (all precisions in
one figure) and DIR/<csv stem>-<routine>-groups.png. DIR defaults to the first CSV's folder.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot.py needs matplotlib: python3 -m pip install matplotlib")

PREC_ORDER = ["r16", "c16", "r32", "c32", "r64", "c64", "r128", "c128"]
BACKEND_STYLE = {  # fixed colours so every figure reads the same
    "native": "tab:blue",
    "native-strided": "tab:purple",
    "native-devptr": "tab:brown",
    "vendor": "tab:orange",
    "cublas-direct": "tab:green",
    "cublas-batched": "tab:olive",
    "vendor-grouped": "tab:red",
    "reference": "tab:gray",
}


def num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                r["_file"] = p
                for k in ("n", "batch", "groups"):
                    r[k] = int(float(r.get(k) or 0))
                for k in ("time_ms", "kernel_ms", "gflops", "gbps", "pct_bw", "kernel_pct_bw", "vs_vendor", "error",
                          "floor_ms", "pct_floor"):
                    r[k] = num(r.get(k))  # missing in older CSVs: nan
                r["notes"] = r.get("notes") or ""
                r.setdefault("layout", "strided")
                r["layout"] = r["layout"] or "strided"
                r.setdefault("device", "host")
                rows.append(r)
    return rows


def sweep_rows(rows):
    """One group, back-to-back matrices; per (device, routine, prec, backend, n) the largest batch
    (the sweep row, not the small host-overhead one)."""
    best = {}
    for r in rows:
        if r["groups"] != 1 or r["layout"] != "strided":
            continue
        key = (r["device"], r["routine"], r["prec"], r["backend"], r["n"])
        if key not in best or r["batch"] > best[key]["batch"]:
            best[key] = r
    return list(best.values())


def draw_panels(ax_fl, ax_bw, rows, title):
    by_backend = defaultdict(list)
    for r in rows:
        by_backend[r["backend"]].append(r)
    ns = sorted({r["n"] for r in rows})
    for b in sorted(by_backend, key=lambda b: list(BACKEND_STYLE).index(b) if b in BACKEND_STYLE else 99):
        rs = sorted(by_backend[b], key=lambda r: r["n"])
        x = [r["n"] for r in rs]
        c = BACKEND_STYLE.get(b)
        ax_fl.plot(x, [r["gflops"] for r in rs], "o-", color=c, label=b, ms=4)
        ax_bw.plot(x, [r["pct_bw"] for r in rs], "o-", color=c, label=b, ms=4)
        # Device-side time of the library's calls: differs from the whole call where host work shows.
        if b in ("native", "native-strided", "native-devptr", "vendor") and any(not math.isnan(r["kernel_pct_bw"]) for r in rs):
            kfl = [r["gflops"] * r["time_ms"] / r["kernel_ms"] if r["kernel_ms"] > 0 else math.nan for r in rs]
            ax_fl.plot(x, kfl, "--", color=c, label=b + " (kernel)", lw=1)
            ax_bw.plot(x, [r["kernel_pct_bw"] for r in rs], "--", color=c, label=b + " (kernel)", lw=1)
    for ax in (ax_fl, ax_bw):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns], fontsize=7)
        ax.set_xlabel("n (square NN)")
        ax.grid(True, which="both", alpha=0.3)
    ax_fl.set_yscale("log")
    ax_fl.set_ylabel("GFLOP/s (LAWN 41)")
    ax_bw.set_ylabel("% of copy bandwidth")
    ax_bw.axhline(100, color="k", lw=0.8)
    ax_bw.axhline(80, color="k", lw=0.5, ls=":")
    ax_bw.set_ylim(bottom=0)
    ax_fl.set_title(title + ": GFLOP/s", fontsize=9)
    ax_bw.set_title(title + ": % of copy BW", fontsize=9)


def prec_key(p):
    return PREC_ORDER.index(p) if p in PREC_ORDER else 99


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", help="output folder (default: the first CSV's folder)")
    ap.add_argument("--overview-only", action="store_true", help="only the one-figure-per-routine overview")
    a = ap.parse_args()
    rows = load(a.csv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv[0]))
    os.makedirs(out, exist_ok=True)
    stem = os.path.splitext(os.path.basename(a.csv[0]))[0]
    written = []

    sw = sweep_rows(rows)
    cases = defaultdict(list)  # (device, routine) -> rows
    for r in sw:
        cases[(r["device"], r["routine"])].append(r)
    multi_device = len({d for d, _ in cases}) > 1
    for (dev, routine), rs in sorted(cases.items()):
        precs = sorted({r["prec"] for r in rs}, key=prec_key)
        tag = f"{stem}-{dev}" if multi_device else stem
        if not a.overview_only:
            for p in precs:
                fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
                draw_panels(ax1, ax2, [r for r in rs if r["prec"] == p], f"{routine} {p}")
                ax2.legend(fontsize=7)
                fig.suptitle(dev, fontsize=9)
                fig.tight_layout()
                path = os.path.join(out, f"{tag}-{routine}-{p}.png")
                fig.savefig(path, dpi=110)
                plt.close(fig)
                written.append(path)
        fig, axes = plt.subplots(len(precs), 2, figsize=(11, 3.4 * len(precs)), squeeze=False)
        for i, p in enumerate(precs):
            draw_panels(axes[i][0], axes[i][1], [r for r in rs if r["prec"] == p], f"{routine} {p}")
        axes[0][1].legend(fontsize=7)
        fig.suptitle(f"{dev}: batched {routine}, ~1 GB of matrix data per call", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.98))
        path = os.path.join(out, f"{tag}-{routine}.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)

    # Calls of several groups: one bar chart per device x routine.
    grouped = defaultdict(list)
    for r in rows:
        if r["groups"] > 1:
            grouped[(r["device"], r["routine"])].append(r)
    for (dev, routine), rs in sorted(grouped.items()):
        labels = sorted({(r["prec"], r["sizes"], r["layout"]) for r in rs}, key=lambda t: (prec_key(t[0]), t[1:]))
        backends = [b for b in BACKEND_STYLE if any(r["backend"] == b for r in rs)]
        backends += sorted({r["backend"] for r in rs} - set(backends))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        w = 0.8 / max(1, len(backends))
        for j, b in enumerate(backends):
            pct, ms = [], []
            for l in labels:
                m = [r for r in rs if (r["prec"], r["sizes"], r["layout"]) == l and r["backend"] == b]
                pct.append(m[0]["pct_bw"] if m else 0)
                ms.append(m[0]["time_ms"] if m else 0)
            xs = [i + j * w for i in range(len(labels))]
            ax1.bar(xs, pct, w, color=BACKEND_STYLE.get(b), label=b)
            ax2.bar(xs, ms, w, color=BACKEND_STYLE.get(b), label=b)
        ticks = [i + w * (len(backends) - 1) / 2 for i in range(len(labels))]
        names = [f"{p} n={s}" + ("" if lay == "strided" else f" {lay}") for p, s, lay in labels]
        for ax in (ax1, ax2):
            ax.set_xticks(ticks)
            ax.set_xticklabels(names, fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
        ax1.axhline(80, color="k", lw=0.5, ls=":")
        ax1.set_ylabel("% of copy bandwidth")
        ax2.set_ylabel("time per call, ms")
        ax2.set_yscale("log")
        ax1.legend(fontsize=7)
        fig.suptitle(f"{dev}: batched {routine}, one call of several groups", fontsize=10)
        fig.tight_layout()
        tag = f"{stem}-{dev}" if multi_device else stem
        path = os.path.join(out, f"{tag}-{routine}-groups.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # Rows with a batch far below the sweep's: the host-overhead case, as a table.
    sweep_batch = {(r["device"], r["routine"], r["prec"], r["n"]): r["batch"] for r in sw}
    small = [r for r in rows if r["groups"] == 1 and r["layout"] == "strided"
             and r["batch"] < sweep_batch.get((r["device"], r["routine"], r["prec"], r["n"]), 0)]
    if small:
        print("small batches (whole call vs device-side time and the call's floor):")
        print(f"  {'device':28s} {'routine':7s} {'prec':5s} {'backend':14s} {'n':>4s} {'batch':>7s} "
              f"{'time_ms':>9s} {'kernel_ms':>9s} {'ratio':>6s} {'floor_ms':>9s} {'%floor':>6s}")
        for r in small:
            ratio = r["time_ms"] / r["kernel_ms"] if r["kernel_ms"] > 0 else math.nan
            print(f"  {r['device']:28s} {r['routine']:7s} {r['prec']:5s} {r['backend']:14s} {r['n']:4d} "
                  f"{r['batch']:7d} {r['time_ms']:9.4f} {r['kernel_ms']:9.4f} {ratio:6.2f} "
                  f"{r['floor_ms']:9.4f} {r['pct_floor']:6.1f}")
    # Shuffled pointers and variable sizes: per-problem data crosses to the device; the floor says how
    # close each call comes to what that costs.
    special = [r for r in rows if r["layout"].split("/")[0] in ("scatter", "variable")]
    if special:
        print("scatter and variable-size calls (time against the floor):")
        print(f"  {'device':28s} {'prec':5s} {'layout':9s} {'backend':14s} {'n':>6s} {'batch':>9s} "
              f"{'time_ms':>9s} {'GB/s':>8s} {'floor_ms':>9s} {'%floor':>6s}  notes")
        for r in special:
            n = r["sizes"] if r["n"] == 0 else str(r["n"])
            print(f"  {r['device']:28s} {r['prec']:5s} {r['layout']:9s} {r['backend']:14s} {n:>6s} {r['batch']:9d} "
                  f"{r['time_ms']:9.4f} {r['gbps']:8.1f} {r['floor_ms']:9.4f} {r['pct_floor']:6.1f}  {r['notes']}")
    # --nonblocking-loop: N non-blocking calls and one synchronize, time per call, against cuBLAS.
    loops = [r for r in rows if r["layout"] == "strided/nonblocking-loop"]
    if loops:
        print("non-blocking loops (time per call of N calls and one synchronize):")
        print(f"  {'device':28s} {'prec':5s} {'backend':17s} {'n':>4s} {'batch':>7s} "
              f"{'time_ms':>9s} {'floor_ms':>9s} {'%floor':>6s}  notes")
        for r in loops:
            print(f"  {r['device']:28s} {r['prec']:5s} {r['backend']:17s} {r['n']:4d} {r['batch']:7d} "
                  f"{r['time_ms']:9.4f} {r['floor_ms']:9.4f} {r['pct_floor']:6.1f}  {r['notes']}")
    for p in written:
        print("wrote", p)


if __name__ == "__main__":
    main()
