#!/usr/bin/env python3
"""The database bench's tables.

    host/report/db.py RAW RESULTS

RAW holds one folder per kernel label (host/run-db-bench.sh), in the
order the file RAW/order lists them (the first is the reference), each
with db.conf, guest-meta.txt, host-meta.txt, hits.txt and
FS/WORKLOAD-SETTING-rROUND.{txt,stat}: sysbench's report of a run and
the aggregate cpu lines of /proc/stat before and after it, and
FS/WORKLOAD-SETTING-traced.txt, the report of the traced run hits.txt
counts.

The guest has one vCPU under QEMU icount, so guest time is that vCPU's
instructions (1 ns each) plus the time the clock jumped over while it was
idle. The /proc/stat window around a run also holds sysbench's start,
busy for a few hundredths of a second and idle while it reads its files
over 9p. So a run whose busy time in the window reaches its length did
not idle, and its instructions are its length; one whose busy time falls
short idled inside the run, and its instructions are that busy time (to
within the start's few hundredths). Instructions of a run = the smaller
of its length (sysbench's total time) and its busy time, per query and
per transaction by sysbench's own counts. RESULTS gets runs.csv (one row a run), summary.md and
metadata.txt. Standard library only.
"""
import re

from report import kernel_runs, med, read_conf, write_kernel_metadata

RUN = re.compile(r"(\w+)-(stock|0|1)-r(\d+)\.txt$")
USER_HZ = 100


def sysbench_counts(text):
    """Transactions, queries and total seconds from sysbench's report."""
    def field(pattern):
        m = re.search(pattern, text, re.M)
        if not m:
            raise ValueError(f"no '{pattern}' in sysbench's report")
        return float(m.group(1))
    return (field(r"^\s*transactions:\s+(\d+)"),
            field(r"^\s*queries:\s+(\d+)"),
            field(r"^\s*total time:\s+([\d.]+)s"))


def busy_idle_seconds(stat):
    """Busy and idle (with iowait) seconds between the two cpu lines of a
    .stat file."""
    before, after = (list(map(int, line.split()[1:]))
                     for line in stat.read_text().splitlines()[:2])
    # Fields: user nice system idle iowait irq softirq steal ...
    delta = [a - b for a, b in zip(after[:8], before[:8])]
    idle = delta[3] + delta[4]
    return (sum(delta) - idle) / USER_HZ, idle / USER_HZ


def runs_of(label_dir):
    """Rows of one kernel's runs."""
    rows = []
    for fs_dir in sorted(p for p in label_dir.iterdir() if p.is_dir()):
        for path in sorted(fs_dir.glob("*.txt")):
            m = RUN.match(path.name)
            if not m:
                continue
            workload, setting, rnd = m.group(1), m.group(2), int(m.group(3))
            txns, queries, total = sysbench_counts(path.read_text())
            busy, idle = busy_idle_seconds(path.with_suffix(".stat"))
            instr = min(total, busy) * 1e9
            kernel = label_dir.name
            if setting != "stock":
                kernel += f" simple_read={setting}"
            rows.append({"fs": fs_dir.name, "workload": workload,
                         "kernel": kernel, "round": rnd,
                         "transactions": int(txns), "queries": int(queries),
                         "guest_s": f"{total:.4f}", "busy_s": f"{busy:.2f}",
                         "window_idle_s": f"{idle:.2f}",
                         "instr_per_query": f"{instr / queries:.0f}",
                         "instr_per_txn": f"{instr / txns:.0f}"})
    return rows


HITS = re.compile(r"^(\S+) (\S+) simple_read=(\S+) direct_reads=(\d+) "
                  r"simple=(\d+) direct_writes=(\d+) overrun=(\d+)$")


def hits_table(labels):
    """The traced runs: direct reads per query, the share the simple path
    served, direct writes, and whether the trace buffer lost events."""
    out = []
    for p in labels:
        hits = p / "hits.txt"
        if not hits.exists():
            continue
        for line in hits.read_text().splitlines():
            m = HITS.match(line)
            if not m:
                raise ValueError(f"{hits}: '{line}'")
            fs, workload, setting = m.group(1), m.group(2), m.group(3)
            reads, simple, writes, lost = map(int, m.group(4, 5, 6, 7))
            _, queries, _ = sysbench_counts(
                (p / fs / f"{workload}-{setting}-traced.txt").read_text())
            kernel = p.name if setting == "stock" else \
                f"{p.name} simple_read={setting}"
            share = f"{simple / reads:.1%}" if reads else "-"
            out.append(f"| {fs} | {workload} | {kernel} | {queries:.0f} | "
                       f"{reads} | {reads / queries:.2f} | {share} | "
                       f"{writes} | {lost} |")
    if not out:
        return []
    return ["", "One traced run per setting after the measured ones (not "
            "measured itself: the trace points cost instructions): the "
            "O_DIRECT reads begun (iomap_dio_rw_begin without WRITE), per "
            "query, and the share the simple path served "
            "(iomap_dio_simple_read); lost = trace events overwritten.", "",
            "| fs | workload | kernel | queries | direct reads | per query "
            "| simple path | direct writes | lost |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"] + out


def main():
    _, results, labels, rows = kernel_runs(__doc__.strip(), runs_of)

    conf = read_conf(labels[0] / "db.conf")
    cells = {}
    for r in rows:
        cell = cells.setdefault((r["fs"], r["workload"]), {})
        cell.setdefault(r["kernel"], []).append(r)
    out = [f"# MariaDB under sysbench: {results.name}\n",
           f"InnoDB with innodb_flush_method=O_DIRECT and a "
           f"{conf['BUFFER_POOL']} buffer pool, {conf['TABLES']} tables of "
           f"{conf['TABLE_ROWS']} rows, one sysbench thread, uniform keys, "
           f"over a unix socket; the data on memory-backed null_blk. "
           f"Guest instructions per query and per transaction, whole guest "
           f"(server, client, kernel), one vCPU under QEMU icount: median "
           f"of the runs (up to {conf['ROUNDS']}) of {conf['RUN_SECONDS']} guest "
           "seconds each, spread = (max - min) / median; change against "
           "the first kernel. A run's instructions are the smaller of "
           "its length (run s) and the busy time /proc/stat counts in a "
           "window around it (busy s, sysbench's start included): a run "
           "whose busy time falls short of its length idled inside it. "
           "Instructions, not cycles: cache misses do not show.\n",
           "| fs | workload | kernel | runs | instr/query | spread | change "
           "| instr/txn | spread | change | run s | busy s |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: "
           "| ---: | ---: | ---: |"]
    for (fs, workload) in sorted(cells):
        cell = cells[(fs, workload)]
        ref = None
        for kernel, runs in cell.items():
            line = f"| {fs} | {workload} | {kernel} | {len(runs)} |"
            meds = []
            for key in ("instr_per_query", "instr_per_txn"):
                v = [float(r[key]) for r in runs]
                m = med(v)
                meds.append(m)
                change = f"{m / ref[len(meds) - 1] - 1:+.2%}" if ref else "-"
                line += f" {m:,.0f} | {(max(v) - min(v)) / m:.2%} | {change} |"
            line += (f" {min(float(r['guest_s']) for r in runs):.2f}-"
                     f"{max(float(r['guest_s']) for r in runs):.2f} |"
                     f" {min(float(r['busy_s']) for r in runs):.2f}-"
                     f"{max(float(r['busy_s']) for r in runs):.2f} |")
            ref = ref or meds
            out.append(line)
    out += hits_table(labels)
    (results / "summary.md").write_text("\n".join(out) + "\n")

    write_kernel_metadata(results / "metadata.txt", labels, "db.conf")
    print((results / "summary.md").read_text())


if __name__ == "__main__":
    main()
