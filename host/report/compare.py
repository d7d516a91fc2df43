#!/usr/bin/env python3
"""Compare two bench runs that booted different kernels.

    host/report/compare.py A_RESULTS B_RESULTS [SYMBOL ...] > compare.md

Each run measured simple_read=0 and 1 in its own boot. simple_read=0 is
the normal direct-I/O path, which a change to the simple path leaves
alone, so it is the control: for every cell the table gives the
simple_read=1 medians of A and B, their ratio, and the ratio of the
gains over each boot's own control, which cancels drift between boots.
SYMBOLs (default: the bio allocation and freeing functions) get their
share of the simple_read=1 profiles of both runs.
"""
import csv
import sys
from pathlib import Path

from report import fmt_int, gain, group, med, perf_symbols

DEFAULT_SYMBOLS = ["bio_alloc_bioset", "mempool_alloc_noprof",
                   "kmem_cache_alloc_noprof", "mempool_free",
                   "kmem_cache_free", "bio_free"]
CELL = ("device", "target", "bs", "engine", "qd")


def medians(results):
    """{cell: (simple_read=0 median IOPS, simple_read=1 median IOPS)}."""
    with open(results / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        # Runs before read sizes were a setting read 4 KiB.
        r.setdefault("bs", "4k")
        r["qd"] = int(r["qd"])
        r["simple_read"] = int(r["simple_read"])
        r["iops"] = float(r["iops"]) if r["iops"] else ""
    return {cell: (med(by_s[0]), med(by_s[1]))
            for cell, by_s in group(rows, CELL, "iops").items()}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    symbols = sys.argv[3:] or DEFAULT_SYMBOLS
    ma, mb = medians(a), medians(b)
    print(f"# {b.name} against {a.name}\n")
    print("IOPS medians of simple_read=1 in each boot; B/A; and B's gain "
          "over its own simple_read=0 against A's.\n")
    print("| device | fs | size | workload | qd | A | B | B/A | A 1/0 "
          "| B 1/0 |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: "
          "| ---: |")
    for key in sorted(set(ma) & set(mb)):
        (a0, a1), (b0, b1) = ma[key], mb[key]
        if None in (a0, a1, b0, b1):
            continue
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} "
              f"| {fmt_int(a1)} | {fmt_int(b1)} | {gain(a1, b1)} "
              f"| {gain(a0, a1)} | {gain(b0, b1)} |")
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
