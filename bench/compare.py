#!/usr/bin/env python3
"""Compare two bench runs that booted different kernels.

    bench/compare.py A_RESULTS B_RESULTS [SYMBOL ...] > compare.md

Each run measured simple_read=0 and 1 in its own boot. simple_read=0 is
the normal direct-I/O path, which a change to the simple path leaves
alone, so it is the control: for every cell the table gives the
simple_read=1 medians of A and B, their ratio, and the ratio of the
gains over each boot's own control, which cancels drift between boots.
SYMBOLs (default: the bio allocation and freeing functions) get their
share of the simple_read=1 profiles of both runs.
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from report import perf_symbols

DEFAULT_SYMBOLS = ["bio_alloc_bioset", "mempool_alloc_noprof",
                   "kmem_cache_alloc_noprof", "mempool_free",
                   "kmem_cache_free", "bio_free"]


def medians(results):
    """{(device, target, engine, qd): {simple_read: median IOPS}}."""
    runs = defaultdict(list)
    with open(results / "runs.csv", newline="") as f:
        for row in csv.DictReader(f):
            key = (row["device"], row["target"], row["engine"],
                   int(row["qd"]))
            runs[key, row["simple_read"]].append(float(row["iops"]))
    out = defaultdict(dict)
    for (key, s), iops in runs.items():
        out[key][s] = statistics.median(iops)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    symbols = sys.argv[3:] or DEFAULT_SYMBOLS
    ma, mb = medians(a), medians(b)
    print(f"# {b.name} against {a.name}\n")
    print("IOPS medians of simple_read=1 in each boot; B/A; and B's gain "
          "over its own simple_read=0 against A's.\n")
    print("| device | fs | workload | qd | A | B | B/A | A 1/0 | B 1/0 |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in sorted(set(ma) & set(mb)):
        ra, rb = ma[key], mb[key]
        if not {"0", "1"} <= set(ra) & set(rb):
            continue
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} "
              f"| {ra['1']:,.0f} | {rb['1']:,.0f} "
              f"| {rb['1'] / ra['1'] - 1:+.2%} "
              f"| {ra['1'] / ra['0'] - 1:+.2%} "
              f"| {rb['1'] / rb['0'] - 1:+.2%} |")
    print("\nShare of samples in the simple_read=1 profiles (perf/), A → B.\n")
    print("| profile | " + " | ".join(symbols) + " |")
    print("| --- |" + " ---: |" * len(symbols))
    for path in sorted((a / "perf").glob("*-s1.txt")):
        other = b / "perf" / path.name
        if not other.exists():
            continue
        sa, sb = perf_symbols(path), perf_symbols(other)
        cells = [f"{sa.get(s, 0):.2f}% → {sb.get(s, 0):.2f}%"
                 for s in symbols]
        print(f"| {path.stem[:-3]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
