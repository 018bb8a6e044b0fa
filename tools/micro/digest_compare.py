#!/usr/bin/env python3
# Compares the bench's --digest CSVs of two builds, order by order: one line, LABEL n:same|DIFFERENT ...
# (a row without a digest counts as different).  digest_compare.py A.csv B.csv LABEL
import csv, re, sys


def digests(path):
    return {r["n"]: (re.search(r"digest (\w+)", r["notes"]).group(1) if "digest" in r["notes"] else "-")
            for r in csv.DictReader(open(path))}


a, b = digests(sys.argv[1]), digests(sys.argv[2])
print(sys.argv[3], " ".join(f"{n}:{'same' if a[n] == b.get(n) != '-' else 'DIFFERENT'}" for n in a))
