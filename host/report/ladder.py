#!/usr/bin/env python3
"""The series ladder's table: instructions per read at each step.

    host/report/ladder.py LADDER_RESULTS > ladder.md

LADDER_RESULTS holds step-LABEL/ folders, each a CLOCK=icount bench run
(runs.csv, build.txt, metadata.txt) of the kernel built from the series up
to a patch (stock: none), and the file steps, which lists them in series
order (host/ladder.sh writes both). Per step and
cell it gives the median instructions per I/O (report.py's runs.csv) of
the default path (simple_read=1 where the kernel has the switch) and of the
normal path (simple_read=0), and the change from the step before.
Standard library only.
"""
import csv
import sys
from pathlib import Path

from report import bs_bytes, med, read_conf

def load(step_dir):
    """{(target, bs, engine, qd): {simple_read: median instr/IO}}."""
    with open(step_dir / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    by = {}
    for r in rows:
        if not r.get("instr_per_io"):
            continue
        k = (r["target"], r["bs"], r["engine"], int(r["qd"]))
        by.setdefault(k, {}).setdefault(int(r["simple_read"]), []).append(
            float(r["instr_per_io"]))
    return {k: {s: med(v) for s, v in d.items()} for k, d in by.items()}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    root = Path(sys.argv[1])
    order = (root / "steps").read_text().split()
    steps = [root / f"step-{label}" for label in order
             if (root / f"step-{label}" / "runs.csv").exists()]
    data = {p.name[5:]: load(p) for p in steps}
    builds = {p.name[5:]: read_conf(p / "build.txt")
              if (p / "build.txt").exists() else {} for p in steps}
    cells = sorted({k for d in data.values() for k in d},
                   key=lambda k: (k[0] == "raw", k[0], bs_bytes(k[1]),
                                  k[2] != "psync", k[2], k[3]))
    heads = [f"{t} {e}{'' if e == 'psync' else ''} QD{q}"
             + ("" if bs == "4k" else f" {bs}") for t, bs, e, q in cells]
    print(f"# The series ladder: {root.name}\n")
    print("Guest instructions per O_DIRECT random read (QEMU icount, "
          "null_blk memory_backed irqmode=0, fio pinned to one vCPU; median "
          "of the rounds, guest ns per read). Each step is its own "
          "kernel, built from the series up to that patch (topic/number in "
          "patches/) with the same config; step-LABEL/ has its runs, "
          "summary, profiles and build.\n")

    def table(title, pick):
        print(f"## {title}\n")
        print("| step | last patch applied | " + " | ".join(heads) + " |")
        print("| --- | --- |" + " ---: |" * len(cells))
        prev = None
        for step, d in data.items():
            vals = [pick(d.get(k, {})) for k in cells]
            out = []
            for i, v in enumerate(vals):
                if v is None:
                    out.append("-")
                    continue
                text = f"{v:,.0f}"
                if prev and prev[i]:
                    text += f" ({v - prev[i]:+,.0f})"
                out.append(text)
            print(f"| {step} | {builds[step].get('last_patch', '')} | "
                  + " | ".join(out) + " |")
            prev = vals
        print()

    table("Default path (simple_read=1 where the kernel has the switch; "
          "in brackets the change from the step above)",
          lambda c: c.get(1, c.get(0)))
    table("Normal path (simple_read=0; raw: the one setting)",
          lambda c: c.get(0, c.get(1)))

    print("## Builds\n")
    print("| step | series hash | patches | build time | ccache |")
    print("| --- | --- | ---: | ---: | --- |")
    for p in steps:
        b = builds[p.name[5:]]
        sec = int(b.get("build_seconds", 0))
        print(f"| {p.name[5:]} | {b.get('series_hash', '-')} "
              f"| {b.get('patches', '-')} | "
              f"{f'{sec // 60} min {sec % 60} s' if b else '-'} "
              f"(JOBS={b.get('jobs', '-')}) | {b.get('ccache', '-')} |")
    print()


if __name__ == "__main__":
    main()
