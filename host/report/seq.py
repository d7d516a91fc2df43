#!/usr/bin/env python3
"""The sequential-throughput bench's tables.

    host/report/seq.py RAW RESULTS

RAW holds one folder per kernel label (host/run-seq-bench.sh), in the
order the file RAW/order lists them (the last is compared with the first
when there are two), each with
seq.conf, guest-meta.txt, host-meta.txt, fio/{write,read}-jJ-rR.json and
frag/jJ-rR.txt (filefrag of the files each write left).
RESULTS gets runs.csv (one row a run), summary.md, metadata.txt and the
perf reports (perf/LABEL-RW-jJ.txt) when the runs were profiled.
Guest time under icount is guest instructions (1 ns each, idle skipped,
every vCPU's), so MiB/s in guest time is 1e9 / instructions per MiB.
Standard library only.
"""
import json
import re

from report import kernel_runs, med, read_conf, write_kernel_metadata

RUN = re.compile(r"(write|read)-j(\d+)-r(\d+)\.json$")


def runs_of(label_dir):
    """Rows of one kernel's runs: bytes and fio's runtime per run."""
    rows = []
    for path in sorted((label_dir / "fio").glob("*.json")):
        m = RUN.search(path.name)
        if not m:
            continue
        rw, jobs, rnd = m.group(1), int(m.group(2)), int(m.group(3))
        job = json.loads(path.read_text())["jobs"][0][rw]
        mib = job["io_bytes"] / 2**20
        ms = job["runtime"]
        rows.append({"kernel": label_dir.name, "rw": rw, "jobs": jobs,
                     "round": rnd, "mib": f"{mib:.0f}", "runtime_ms": ms,
                     "mib_per_s": f"{mib * 1000 / ms:.2f}",
                     "instr_per_mib": f"{ms * 1e6 / mib:.0f}"})
    return rows


FRAG = re.compile(r"^(.*): (\d+) extents? found$", re.M)


def layout_table(labels, conf):
    """Extents per file after each write, from filefrag's summaries."""
    cells = {}
    for p in labels:
        for path in sorted((p / "frag").glob("j*-r*.txt")):
            jobs = int(path.name[1:].split("-")[0])
            counts = [int(n) for _, n in FRAG.findall(path.read_text())]
            if counts:
                cells.setdefault((jobs, p.name), []).extend(counts)
    if not cells:
        return []
    out = ["", "The written files' extents (filefrag; exfat and minix have "
           "no FIEMAP, so it maps block by block with FIBMAP, alike on "
           "every kernel): "
           "median, min and max over the files of every round, and MiB "
           "per extent at the median.", "",
           "| jobs | kernel | MiB per file | extents per file (median, "
           "min-max) | MiB per extent |", "| ---: | --- | ---: | ---: | ---: |"]
    for (jobs, name), counts in sorted(cells.items()):
        mib = int(conf["FILE_MB"]) / jobs
        m = med(counts)
        out.append(f"| {jobs} | {name} | {mib:g} | {m:g} ({min(counts)}-"
                   f"{max(counts)}) | {mib / m:.2f} |")
    return out


def main():
    _, results, labels, rows = kernel_runs(__doc__.strip(), runs_of)

    conf = read_conf(labels[0] / "seq.conf")
    # The filesystem as the guest made it, in its own words.
    mkfs = read_conf(labels[0] / "guest-meta.txt")["mkfs"]
    cells = {}
    for r in rows:
        key = (r["rw"], r["jobs"])
        cells.setdefault(key, {}).setdefault(r["kernel"], []).append(
            float(r["instr_per_mib"]))
    names = [p.name for p in labels]
    out = [f"# Sequential buffered throughput: {results.name}\n",
           f"{conf['FS']} (`{mkfs}`) on "
           "memory-backed null_blk, QEMU icount (guest time = guest "
           "instructions of every vCPU, idle skipped), fio psync "
           f"{conf['BS']} sequential {conf['FILE_MB']} MiB in all split "
           "over the jobs, buffered, an fsync at the end of each job; the "
           "page cache dropped between the write and the read. Guest "
           "instructions per MiB (median of "
           f"{conf['ROUNDS']} rounds; spread = (max - min) / median), and "
           "MiB/s in guest time = 1e9 / that. Instructions, not "
           "cycles: cache misses do not show, a lock spun on counts the "
           "instructions spun and a sleep on one none, so jobs running "
           "side by side add their instructions rather than overlap.\n",
           "| rw | jobs | " + " | ".join(
               f"{n} instr/MiB | {n} MiB/s | {n} spread" for n in names)
           + (" | change |" if len(names) == 2 else " |"),
           "| --- | ---: |" + " ---: | ---: | ---: |" * len(names)
           + (" ---: |" if len(names) == 2 else "")]
    for (rw, jobs) in sorted(cells, key=lambda k: (k[0] != "write", k[1])):
        cell = cells[(rw, jobs)]
        line = f"| {rw} | {jobs} |"
        meds = []
        for n in names:
            v = cell.get(n, [])
            if not v:
                line += " - | - | - |"
                meds.append(None)
                continue
            m = med(v)
            meds.append(m)
            line += (f" {m:,.0f} | {1e9 / m:,.1f} | "
                     f"{(max(v) - min(v)) / m:.3%} |")
        if len(names) == 2:
            a, b = meds
            line += (f" {(a / b - 1):+.1%} MiB/s ({names[1]} vs "
                     f"{names[0]}) |" if a and b else " - |")
        out.append(line)
    out += layout_table(labels, conf)
    (results / "summary.md").write_text("\n".join(out) + "\n")

    # The perf reports stay readable files; the rest goes into the archive.
    for p in labels:
        for report in sorted((p / "perf").glob("*.txt")):
            (results / "perf").mkdir(exist_ok=True)
            (results / "perf" / f"{p.name}-{report.name}").write_text(
                report.read_text())

    write_kernel_metadata(results / "metadata.txt", labels, "seq.conf")
    print((results / "summary.md").read_text())


if __name__ == "__main__":
    main()
