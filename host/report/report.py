#!/usr/bin/env python3
"""Turn what guest/bench/run-guest.sh left in the 9p share into a results folder.

    host/report/report.py SHARE RESULTS

SHARE holds bench.conf, host-meta.txt, guest-meta.txt, path-check.txt,
errors.txt and the raw runs (fio/*.json, stat/*, peak/*.txt, perf/*.txt).
RESULTS gets the perf reports as they came, raw.tar.xz (the fio JSON, stat
snapshots and uring-peak output of every run), runs.csv (one row per run),
peak.csv, summary.md, metadata.txt and plots/*.png (gnuplot). Standard
library only.

CLOCK=realtime: summary.md has the A/B tables the way the upstream cover
letter shows them, plus min-max and CPU per I/O. CLOCK=icount: guest time
is guest instructions (1 ns each), so a run's instructions per I/O are
1e9 / IOPS; summary.md has them per cell and setting, the spread over
rounds, the filesystem's cost over raw, and the instruction profiles:
exact ones (PROFILER=insn: insn/*.txt, host/report/insn.py) or perf's
samples (PROFILER=perf).
"""
import csv
import json
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import insn

# /proc/stat counts in USER_HZ ticks; 100 on x86.
USER_HZ = 100
# The symbols the upstream profile blames for the slow path, and the
# prefix of the fast path's own functions.
SLOW_SYMBOLS = ["__iomap_dio_rw", "iomap_iter", "iomap_dio_bio_iter",
                "kfree", "iomap_dio_complete"]
FAST_PREFIX = "iomap_dio_simple"
TAG = re.compile(r"(?P<device>[^-]+)-(?P<target>[^-]+)-(?P<engine>[^-]+)"
                 r"(?:-bs(?P<bs>\w+))?-qd(?P<qd>\d+)-s(?P<s>[01])"
                 r"-r(?P<round>\d+)$")
# icount: a cell whose spread over rounds is above this is flagged, and so
# is one whose fio job was busy less than CPU_FLAG percent of the time:
# 1e9 / IOPS counts instructions per I/O only if the submitting vCPU never
# waited.
SPREAD_FLAG = 0.5
CPU_FLAG = 99.0
# icount profiles: symbols listed per profile.
TOP_SYMBOLS = 30
# cpu-clock samples by an ordinary interrupt: one that falls due while
# interrupts are off is taken after the `sti` that ends that stretch, one
# instruction later (the sti shadow), so these symbols collect the samples
# of code that ran before them with interrupts off (checked against the
# guest's vmlinux: results/METHOD.md, "Sampled profiles").
IRQS_OFF_SINKS = {
    "errno_to_blk_status": "null_blk's data copy and page lookup under "
    "spin_lock_irq(&nullb->lock): null_process_cmd's `sti; call "
    "errno_to_blk_status`",
    "handle_softirqs": "interrupts-off time that ends in softirq "
    "processing (hard-interrupt handlers, the sampling one among them): "
    "the `sti` at the top of handle_softirqs",
    "pv_native_safe_halt": "idle: the vCPU halted (fio starting or "
    "ending, the clock jumping to the next sample); left out of the "
    "instructions",
}
IDLE = "pv_native_safe_halt"
PEAK_TAG = re.compile(r"(?P<device>[^-]+)-(?P<target>[^-]+)"
                      r"-s(?P<s>[01])-r(?P<round>\d+)$")


def read_conf(path):
    """KEY=VALUE lines (quotes dropped) as a dict."""
    conf = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            conf[key] = value.strip('"')
    return conf


def system_cpu(path):
    """System-wide busy CPU seconds and completed device reads between the
    two snapshots of a run: busy is every /proc/stat state but idle and
    iowait, so it includes irq and softirq time."""
    before, _, after = path.read_text().partition("---\n")

    def parse(text):
        cpu, disk = text.strip().splitlines()
        ticks = [int(x) for x in cpu.split()[1:9]]
        busy = sum(ticks) - ticks[3] - ticks[4]
        return busy, int(disk.split()[3])

    (busy0, reads0), (busy1, reads1) = parse(before), parse(after)
    return (busy1 - busy0) / USER_HZ, reads1 - reads0


def bs_bytes(bs):
    return int(bs[:-1]) * 1024 if bs.endswith("k") else int(bs)


def guest_ms(text):
    """A guest time of run-bench.sh's form (500ms, 1s, 2) in ms."""
    if text.endswith("ms"):
        return int(text[:-2])
    return int(text.rstrip("s")) * 1000


def load_runs(share, icount=False, runtime_ms=None):
    """One row per run. icount: instructions per I/O are the measured
    phase's guest nanoseconds over its reads. fio records the phase's
    length rounded up to whole ms, and a time-based run stops at the first
    read past RUNTIME, so a 500 ms run reads 501: when fio's figure is
    RUNTIME or RUNTIME + 1 ms, RUNTIME is the length (to within one read)
    and 1e9 / fio's IOPS would read up to 0.2% high."""
    rows = []
    for path in sorted((share / "fio").glob("*.json")):
        m = TAG.match(path.stem)
        text = path.read_text()
        # fio may print a warning line before the JSON document.
        job = json.loads(text[text.index("{"):])["jobs"][0]
        read = job["read"]
        ios = read["total_ios"]
        runtime = job["job_runtime"] / 1000
        if icount:
            # Guest time is instructions: ns per read = instructions.
            ns = read["runtime"] * 1e6
            if runtime_ms and runtime_ms <= read["runtime"] <= runtime_ms + 1:
                ns = runtime_ms * 1e6
            rows.append({
                "device": m["device"], "target": m["target"],
                "engine": m["engine"], "bs": m["bs"] or "4k",
                "qd": int(m["qd"]), "simple_read": int(m["s"]),
                "round": int(m["round"]), "iops": round(read["iops"], 1),
                "instr_per_io": round(ns / ios, 1) if ios else "",
                "ios": ios, "runtime_ms": read["runtime"],
                "fio_cpu_pct": round(job["usr_cpu"] + job["sys_cpu"], 2),
                "lat_mean_ns": round(read["lat_ns"]["mean"], 1),
            })
            continue
        busy, reads = system_cpu(share / "stat" / path.stem)
        rows.append({
            "device": m["device"], "target": m["target"],
            "engine": m["engine"], "bs": m["bs"] or "4k", "qd": int(m["qd"]),
            "simple_read": int(m["s"]), "round": int(m["round"]),
            "iops": round(read["iops"]),
            "bw_kib_s": read["bw"],
            "lat_mean_us": round(read["lat_ns"]["mean"] / 1000, 2),
            # Total latency: with null_blk irqmode=0 a read completes
            # inside its submission, so clat alone would miss it.
            "lat_p99_us": round(
                read["lat_ns"]["percentile"]["99.000000"] / 1000, 2),
            "fio_cpu_us_per_io": round((job["usr_cpu"] + job["sys_cpu"])
                                       / 100 * runtime / ios * 1e6, 3),
            "sys_cpu_us_per_io": round(busy / reads * 1e6, 3)
            if reads else "",
        })
    rows.sort(key=lambda r: (r["device"], r["target"], bs_bytes(r["bs"]),
                             r["engine"], r["qd"], r["round"],
                             r["simple_read"]))
    return rows


def load_peak(share):
    rows = []
    for path in sorted((share / "peak").glob("*.txt")):
        m = PEAK_TAG.match(path.stem)
        fields = dict(kv.split("=", 1) for kv in path.read_text().split()
                      if "=" in kv)
        if "iops" not in fields:
            continue
        rows.append({
            "device": m["device"], "target": m["target"],
            "simple_read": int(m["s"]), "round": int(m["round"]),
            "iops": int(fields["iops"]),
            "cpu_us_per_io": float(fields["cpu_us_per_io"]),
            "depth": int(fields["depth"]), "batch": int(fields["batch"]),
            "iopoll": int(fields["iopoll"]),
        })
    return rows


def write_csv(path, rows):
    with path.open("w", newline="") as f:
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


def kernel_runs(usage, runs_of):
    """The command line RAW RESULTS of a bench that booted one kernel per
    folder of RAW, in the order RAW/order lists them: the two paths, the
    folders, and the rows runs_of makes of them all, also written to
    RESULTS/runs.csv. Exits with usage on a wrong command line, and when
    there is no run."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    raw, results = Path(sys.argv[1]), Path(sys.argv[2])
    labels = [raw / n for n in (raw / "order").read_text().split()]
    rows = [r for p in labels for r in runs_of(p)]
    if not rows:
        sys.exit(f"{Path(sys.argv[0]).name}: no runs under {raw}")
    write_csv(results / "runs.csv", rows)
    return raw, results, labels, rows


def write_kernel_metadata(path, labels, conf_name):
    """metadata.txt of a bench that booted one kernel per folder of
    labels: each folder's settings, guest-meta.txt and host-meta.txt."""
    with path.open("w") as f:
        for p in labels:
            f.write(f"[{p.name}]\n")
            for part in (conf_name, "guest-meta.txt", "host-meta.txt"):
                f.write((p / part).read_text())
            f.write("\n")


def group(rows, keys, value):
    """{key tuple: {simple_read: [value, ...]}}, keys in first-seen order."""
    out = {}
    for r in rows:
        if r[value] == "":
            continue
        k = tuple(r[k] for k in keys)
        out.setdefault(k, {0: [], 1: []})[r["simple_read"]].append(r[value])
    return out


def med(values):
    return statistics.median(values) if values else None


def fmt_int(v):
    return "-" if v is None else f"{v:,.0f}"


def fmt_range(values):
    return f"{min(values):,.0f}–{max(values):,.0f}" if values else "-"


def fmt_us(values):
    return "-" if not values else f"{med(values):.2f}"


def gain(a, b):
    return "-" if not a or b is None else f"{(b / a - 1) * 100:+.2f}%"


def ab_table(rows, device):
    """The cover letter's table for one device, with min-max and the two
    CPU-per-I/O measures (medians, simple_read 0 -> 1)."""
    keys = ("target", "engine", "qd")
    sizes = sorted({r["bs"] for r in rows}, key=bs_bytes)
    if sizes != ["4k"]:
        keys = ("target", "bs", "engine", "qd")
    sel = [r for r in rows if r["device"] == device]
    iops = group(sel, keys, "iops")
    fcpu = group(sel, keys, "fio_cpu_us_per_io")
    scpu = group(sel, keys, "sys_cpu_us_per_io")
    lines = [
        "| fs | workload | qd | simple=0 | simple=1 | gain | simple=0 min–max"
        " | simple=1 min–max | n | fio CPU µs/IO 0→1 | system CPU µs/IO 0→1 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for k, v in iops.items():
        m0, m1 = med(v[0]), med(v[1])
        f, s = fcpu.get(k, {0: [], 1: []}), scpu.get(k, {0: [], 1: []})
        workload = k[1] if len(k) == 3 else f"{k[2]} {k[1]}"
        lines.append(
            f"| {k[0]} | {workload} | {k[-1]} | {fmt_int(m0)} | {fmt_int(m1)} "
            f"| {gain(m0, m1)} | {fmt_range(v[0])} | {fmt_range(v[1])} "
            f"| {len(v[0])}+{len(v[1])} "
            f"| {fmt_us(f[0])} → {fmt_us(f[1])} "
            f"| {fmt_us(s[0])} → {fmt_us(s[1])} |")
    return lines


def peak_table(peak):
    iops = group(peak, ("device", "target"), "iops")
    cpu = group(peak, ("device", "target"), "cpu_us_per_io")
    lines = [
        "| device | target | simple=0 | simple=1 | gain | simple=0 min–max"
        " | simple=1 min–max | CPU µs/IO 0→1 |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for k, v in iops.items():
        m0, m1 = med(v[0]), med(v[1])
        lines.append(
            f"| {k[0]} | {k[1]} | {fmt_int(m0)} | {fmt_int(m1)} "
            f"| {gain(m0, m1)} | {fmt_range(v[0])} | {fmt_range(v[1])} "
            f"| {fmt_us(cpu[k][0])} → {fmt_us(cpu[k][1])} |")
    return lines


def perf_symbols(path):
    """{symbol: percent} from a perf report --stdio --sort sym text."""
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[k.]\]\s+(\S+)", line)
        if m:
            out[m[2]] = out.get(m[2], 0) + float(m[1])
    return out


def perf_table(perf_dir):
    """The upstream profile's symbols, and the fast path's, per profile."""
    lines = [
        "| profile | simple_read | " + " | ".join(SLOW_SYMBOLS)
        + f" | {FAST_PREFIX}_* |",
        "| --- | ---: |" + " ---: |" * (len(SLOW_SYMBOLS) + 1),
    ]
    for path in sorted(perf_dir.glob("*.txt")):
        name, _, s = path.stem.rpartition("-s")
        sym = perf_symbols(path)
        fast = sum(p for k, p in sym.items() if k.startswith(FAST_PREFIX))
        cells = [f"{sym.get(k, 0):.2f}%" for k in SLOW_SYMBOLS]
        lines.append(f"| {name} | {s} | " + " | ".join(cells)
                     + f" | {fast:.2f}% |")
    return lines


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot(rows, conf, plots):
    """Per device: IOPS vs QD (medians, min-max bars, both settings side by
    side) and CPU per I/O vs QD, one panel per target and engine; of the
    first read size only."""
    targets, engines = conf["TARGETS"].split(), conf["ENGINES"].split()
    rows = [r for r in rows if r["bs"] == conf.get("BSS", "4k").split()[0]]
    iops = group(rows, ("device", "target", "engine", "qd"), "iops")
    fcpu = group(rows, ("device", "target", "engine", "qd"),
                 "fio_cpu_us_per_io")
    scpu = group(rows, ("device", "target", "engine", "qd"),
                 "sys_cpu_us_per_io")
    size = f"{420 * len(engines)},{320 * len(targets)}"
    with tempfile.TemporaryDirectory() as tmp:
        for device in conf["DEVICES"].split():
            panels_iops, panels_cpu = [], []
            for target in targets:
                for engine in engines:
                    keys = [k for k in iops
                            if k[:3] == (device, target, engine)]
                    if not keys:
                        continue
                    dat = Path(tmp) / f"{device}-{target}-{engine}.dat"
                    with dat.open("w") as f:
                        for k in keys:
                            v, fc, sc = iops[k], fcpu[k], scpu.get(k)
                            sc = sc or {0: [], 1: []}
                            f.write(" ".join(str(x) for x in (
                                k[3], med(v[0]) or 0, min(v[0] or [0]),
                                max(v[0] or [0]), med(v[1]) or 0,
                                min(v[1] or [0]), max(v[1] or [0]),
                                med(fc[0]) or 0, med(fc[1]) or 0,
                                med(sc[0]) or 0, med(sc[1]) or 0)) + "\n")
                    title = f"set title '{target} {engine}'"
                    panels_iops.append(
                        f"{title}\nplot '{dat}' using 2:3:4:xtic(1) "
                        "title 'simple_read=0', '' using 5:6:7 "
                        "title 'simple_read=1'")
                    panels_cpu.append(
                        f"{title}\nset xrange [-0.5:{len(keys) - 0.5}]\n"
                        f"plot '{dat}' using 0:8:xtic(1) w lp "
                        "title 'fio, simple_read=0', '' using 0:9 w lp "
                        "title 'fio, simple_read=1', '' using 0:10 w lp "
                        "title 'system, simple_read=0', '' using 0:11 w lp "
                        "title 'system, simple_read=1'")
            if not panels_iops:
                continue
            head = (f"set terminal pngcairo size {size} font ',9' "
                    "noenhanced\nset key below maxrows 2\nset grid y\n"
                    "set xlabel 'QD'\n")
            layout = (f"set multiplot layout {len(targets)},{len(engines)} "
                      f"title '{device}: 4 KiB O_DIRECT randread, medians'\n")
            gnuplot(head + f"set output '{plots}/{device}-iops.png'\n"
                    "set style data histogram\n"
                    "set style histogram errorbars gap 1 lw 1\n"
                    "set style fill solid 0.6 border -1\nset yrange [0:*]\n"
                    "set ylabel 'IOPS'\n" + layout
                    + "\n".join(panels_iops) + "\nunset multiplot\n")
            gnuplot(head + f"set output '{plots}/{device}-cpu.png'\n"
                    "set yrange [0:*]\nset ylabel 'CPU µs per I/O'\n"
                    + layout + "\n".join(panels_cpu) + "\nunset multiplot\n")


def spread(values):
    """(max - min) / median in percent."""
    if len(values) < 2 or not med(values):
        return 0.0
    return (max(values) - min(values)) / med(values) * 100


def icount_cells(rows):
    """{(target, bs, engine, qd): {simple_read: {instr, iops, spread,
    cpu, n}}} from the icount runs."""
    cells = {}
    for r in rows:
        if r["instr_per_io"] == "":
            continue
        k = (r["target"], r["bs"], r["engine"], r["qd"])
        cells.setdefault(k, {}).setdefault(r["simple_read"], []).append(r)
    out = {}
    for k, by_s in cells.items():
        out[k] = {}
        for s, runs in by_s.items():
            iops = [r["iops"] for r in runs]
            instr = [r["instr_per_io"] for r in runs]
            out[k][s] = {
                "instr": med(instr), "iops": med(iops),
                "spread": spread(instr), "n": len(runs),
                "cpu": min(r["fio_cpu_pct"] for r in runs),
            }
    return out


def workload(engine, qd):
    return f"{engine} QD{qd}"


def flags(*stats):
    out = []
    if any(st["spread"] > SPREAD_FLAG for st in stats):
        out.append(f"spread>{SPREAD_FLAG}%")
    if any(st["cpu"] < CPU_FLAG for st in stats):
        out.append(f"CPU<{CPU_FLAG:.0f}%")
    return " ".join(out)


def icount_tables(cells, conf):
    """Per filesystem target: instructions per I/O with each setting, the
    difference, the cost over raw; then raw's own table."""
    order = lambda k: (bs_bytes(k[1]),  # noqa: E731
                       conf["ENGINES"].split().index(k[2]), k[3])
    md = []
    fs_targets = [t for t in conf["TARGETS"].split() if t != "raw"]
    raw = {k[1:]: v.get(1) or v.get(0) for k, v in cells.items()
           if k[0] == "raw"}
    nflag = 0
    for target in fs_targets:
        keys = sorted((k for k in cells if k[0] == target), key=order)
        if not keys:
            continue
        md += [f"### {target}", "",
               "| size | workload | instr/IO simple=0 | instr/IO simple=1 "
               "| 1 − 0 | 1 vs 0 | over raw 0 | over raw 1 | IOPS 0 "
               "| IOPS 1 | spread 0 | spread 1 | fio CPU | flags |",
               "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: | ---: | ---: | ---: | --- |"]
        for k in keys:
            c0, c1 = cells[k].get(0), cells[k].get(1)
            rw = raw.get(k[1:])
            have = [c for c in (c0, c1) if c]
            fl = flags(*have)
            nflag += bool(fl)

            def num(c, f="instr"):
                return f"{c[f]:,.0f}" if c else "-"

            def over(c):
                return f"{c['instr'] - rw['instr']:+,.0f}" if c and rw else "-"

            def pct(c):
                return f"{c['spread']:.3f}%" if c else "-"
            diff = (f"{c1['instr'] - c0['instr']:+,.0f}" if c0 and c1
                    else "-")
            rel = (f"{(c1['instr'] / c0['instr'] - 1) * 100:+.2f}%"
                   if c0 and c1 else "-")
            md.append(
                f"| {k[1]} | {workload(k[2], k[3])} | {num(c0)} | {num(c1)} "
                f"| {diff} | {rel} | {over(c0)} | {over(c1)} "
                f"| {num(c0, 'iops')} | {num(c1, 'iops')} | {pct(c0)} "
                f"| {pct(c1)} | {min(c['cpu'] for c in have):.1f}% | {fl} |")
        md.append("")
    keys = sorted((k for k in cells if k[0] == "raw"), key=order)
    if keys:
        md += ["### raw", "",
               "| size | workload | instr/IO | IOPS | spread | fio CPU "
               "| flags |", "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
        for k in keys:
            c = raw[k[1:]]
            fl = flags(c)
            nflag += bool(fl)
            md.append(f"| {k[1]} | {workload(k[2], k[3])} "
                      f"| {c['instr']:,.0f} | {c['iops']:,.0f} "
                      f"| {c['spread']:.3f}% | {c['cpu']:.1f}% | {fl} |")
        md.append("")
    return md, nflag


def icount_profiles(perf_dir, cells, conf, qd):
    """Per profile: the top symbols' share of the samples in each of its
    rounds, and the mean share of the busy samples (idle ones, in
    pv_native_safe_halt, left out: under icount the clock jumps over idle
    time, sampling it) turned into instructions per I/O with the
    unprofiled cell's count (PROFILE_ENGINE at QD qd, 4 KiB)."""
    engine = conf.get("PROFILE_ENGINE", "io_uring")
    md = []
    names = sorted({p.stem.split("-p")[0] for p in perf_dir.glob("*.txt")
                    if not p.stem.endswith("-ips")})
    for name in names:
        rounds = sorted(perf_dir.glob(f"{name}*.txt"))
        rounds = [p for p in rounds if not p.stem.endswith("-ips")
                  and (p.stem == name or p.stem.startswith(name + "-p"))]
        shares = [perf_symbols(p) for p in rounds]
        _, target, s = name.split("-")
        cell = cells.get((target, "4k", engine, qd), {}).get(int(s[1:]))
        mean = {k: statistics.mean(sh.get(k, 0) for sh in shares)
                for k in set().union(*shares)}
        top = sorted(mean, key=mean.get, reverse=True)[:TOP_SYMBOLS]
        busy = 100 - mean.get(IDLE, 0)
        head = " | ".join(f"share p{i + 1}" for i in range(len(shares)))
        md += [f"### {name}: {engine} QD{qd} 4 KiB"
               + (f", {cell['instr']:,.0f} instructions per I/O unprofiled"
                  if cell else ""), "",
               f"| symbol | {head} | instr/IO (busy share × count) |",
               "| --- |" + " ---: |" * (len(shares) + 1)]
        for k in top:
            cols = " | ".join(f"{sh.get(k, 0):.2f}%" for sh in shares)
            ipi = (f"{mean[k] / busy * cell['instr']:,.0f}"
                   if cell and k != IDLE else "-")
            mark = " †" if k in IRQS_OFF_SINKS else ""
            md.append(f"| {k}{mark} | {cols} | {ipi} |")
        md.append("")
    md += ["† collects the samples of code that ran with interrupts off "
           "before it (the sampling interrupt waits for the `sti`):", ""]
    md += [f"- `{k}`: {v}" for k, v in IRQS_OFF_SINKS.items()]
    md.append("")
    return md


def plot_icount(cells, conf, plots):
    """Instructions per I/O per workload: a panel per filesystem target
    and read size, bars simple_read=0, simple_read=1 and raw."""
    sizes = conf["BSS"].split()
    fs_targets = [t for t in conf["TARGETS"].split() if t != "raw"]
    if not fs_targets:
        return
    panels = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in fs_targets:
            for bs in sizes:
                keys = [k for k in cells if k[0] == target and k[1] == bs]
                keys.sort(key=lambda k: (conf["ENGINES"].split().index(k[2]),
                                         k[3]))
                if not keys:
                    continue
                dat = Path(tmp) / f"{target}-{bs}.dat"
                with dat.open("w") as f:
                    for k in keys:
                        c = cells[k]
                        rw = cells.get(("raw",) + k[1:], {})
                        rw = rw.get(1) or rw.get(0)
                        vals = [c[s]["instr"] if s in c else 0 for s in (0, 1)]
                        vals.append(rw["instr"] if rw else 0)
                        f.write(f"{k[2]}-QD{k[3]} "
                                + " ".join(f"{v:.0f}" for v in vals) + "\n")
                panels.append(
                    f"set title '{target} {bs}'\nplot '{dat}' using 2:xtic(1)"
                    " title 'simple_read=0', '' using 3 title "
                    "'simple_read=1', '' using 4 title 'raw'")
        if not panels:
            return
        gnuplot(f"set terminal pngcairo size {460 * len(sizes)},"
                f"{340 * len(fs_targets)} font ',9' noenhanced\n"
                f"set output '{plots}/instr-per-io.png'\n"
                "set key below\nset grid y\nset style data histogram\n"
                "set style histogram clustered gap 1\n"
                "set style fill solid 0.6 border -1\nset yrange [0:*]\n"
                "set xtics rotate by -30\nset ylabel 'instructions per I/O'\n"
                f"set multiplot layout {len(fs_targets)},{len(sizes)} title "
                "'guest instructions per O_DIRECT random read (icount)'\n"
                + "\n".join(panels) + "\nunset multiplot\n")


def profile_section(results, share, conf, meta, cells):
    """The instruction profiles: exact counts from the QEMU plugin, or
    perf's samples."""
    qd = int(meta["profile_qd"])
    engine = conf.get("PROFILE_ENGINE", "io_uring")
    bs = conf.get("PROFILE_BS", "4k")
    if conf.get("PROFILER") == "insn":
        ios = int(conf["INSN_IOS"])
        profiles = insn.load(share / "insn", ios)
        insn.write_profiles(profiles, results / "insn")
        counts = {}
        for name in profiles:
            _, target, s = name.split("-")[:3]
            cell = cells.get((target, bs, engine, qd), {}).get(int(s[1:]))
            if cell:
                counts[name] = cell["instr"]
        return ["## Instruction profiles (exact: QEMU plugin insn-count)",
                "", *insn.summary(profiles, counts, ios, engine, qd, bs)]
    return [f"## Instruction profiles (perf {meta.get('perf_event')}, a "
            f"sample every {conf.get('PROFILE_PERIOD')} ns of guest time)",
            "", f"{conf.get('PROFILE_ROUNDS')} profiles per setting of "
            f"{conf.get('PROFILE_RUNTIME')} each; self share of the samples "
            "per symbol, kernel symbols from /proc/kallsyms; the last column "
            "spreads the unprofiled cell's count over the busy samples (a "
            "profile covers the whole fio run, its start and exit too). "
            "Most sampled addresses: perf/*-ips.txt.", "",
            *icount_profiles(results / "perf", cells, conf, qd)]


def icount_summary(results, share, conf, meta, rows):
    cells = icount_cells(rows)
    tables, nflag = icount_tables(cells, conf)
    md = [f"# Instructions per I/O (icount): {results.name}", "",
          f"Kernel {meta.get('guest_kernel')} (series "
          f"{read_conf(share / 'host-meta.txt').get('series_hash')}), QEMU "
          "TCG `-icount shift=0,sleep=off`: guest time advances 1 ns per "
          "guest instruction and skips idle time, so on memory-backed "
          "null_blk with irqmode=0 an I/O is pure CPU work and "
          "instructions per I/O = guest ns of the measured phase / reads "
          "(≈ 1e9 / IOPS; fio rounds the phase up to whole ms, so the "
          "configured runtime is used: load_runs()). fio O_DIRECT "
          f"randread, {meta.get('guest_pinning')}; {conf['ROUNDS']} rounds "
          f"per setting (ABBA; raw: one setting), {conf['RAMP']} ramp + "
          f"{conf['RUNTIME']} of guest time per run, {conf['SIZE_MB']} MiB "
          "test file; figures are medians over the rounds.", "",
          "Columns: *1 − 0* and *1 vs 0* compare simple_read=1 with 0; "
          "*over raw* is the filesystem's count minus raw's (same size, "
          "engine and QD): what the filesystem and iomap add; *spread* is "
          "(max − min) / median over the rounds; *fio CPU* the lowest "
          "usr+sys of the fio job over the cell's runs. Flags: "
          f"`spread>{SPREAD_FLAG}%`; `CPU<{CPU_FLAG:.0f}%`: the submitting "
          "vCPU was not saturated, so 1e9 / IOPS also counts time it "
          "waited (or the other vCPU worked): that cell's count is not "
          f"instructions per I/O. {nflag} cells flagged.", "",
          "What it does not see: cache misses, branch mispredictions, the "
          "real cost of atomics and of indirect calls (an instruction is "
          "an instruction). null_blk's copy of the data is guest "
          "instructions too, in raw and fs alike (results/METHOD.md).", "",
          "## Instructions per I/O", "", *tables,
          "![instructions per I/O](plots/instr-per-io.png)", "",
          *profile_section(results, share, conf, meta, cells),
          "## Simple path taken (trace point hits of 64 reads)", "", "```",
          (share / "path-check.txt").read_text().rstrip(), "```", "",
          *layout_section(share, conf)]
    return md, cells


def layout_section(share, conf):
    """The test files' extents, as FIEMAP saw them, for a fragmented
    LAYOUT; nothing for the default fresh file of one write."""
    layout = share / "layout.txt"
    if not layout.exists():
        return []
    return [f"## Test file layout: LAYOUT={conf.get('LAYOUT')}", "",
            "Made by mkfrag (guest/tools/mkfrag.c); extents and their "
            "lengths in 4 KiB blocks from filefrag -v (FIEMAP):", "", "```",
            layout.read_text().rstrip(), "```", ""]


def main():
    share, results = Path(sys.argv[1]), Path(sys.argv[2])
    conf = read_conf(share / "bench.conf")
    meta = read_conf(share / "guest-meta.txt")
    icount = conf.get("CLOCK", "realtime") == "icount"
    rows = load_runs(share, icount,
                     guest_ms(conf["RUNTIME"]) if icount else None)
    peak = load_peak(share)
    shutil.copytree(share / "perf", results / "perf")
    # The raw output of every run in one archive: it is large as files.
    with tarfile.open(results / "raw.tar.xz", "w:xz") as tar:
        for sub in ("fio", "stat", "peak"):
            tar.add(share / sub, arcname=sub)
    (results / "plots").mkdir()
    write_csv(results / "runs.csv", rows)
    if peak:
        write_csv(results / "peak.csv", peak)
    shutil.copy(share / "path-check.txt", results)
    if (share / "layout.txt").exists():
        shutil.copy(share / "layout.txt", results)

    meta_text = "".join((share / n).read_text() for n in
                        ("host-meta.txt", "guest-meta.txt", "bench.conf"))
    (results / "metadata.txt").write_text(meta_text)
    if icount:
        md, cells = icount_summary(results, share, conf, meta, rows)
        errors = (share / "errors.txt").read_text().strip()
        if errors:
            md += ["## Errors", "", "```", errors, "```", ""]
        (results / "summary.md").write_text("\n".join(md))
        plot_icount(cells, conf, results / "plots")
        return

    md = [f"# simple_read A/B: {results.name}", "",
          f"Kernel {meta.get('guest_kernel')}, {meta.get('guest_vcpus')} "
          f"vCPUs, {meta.get('guest_pinning')}; fio {meta.get('fio_version')}"
          f"; {conf['ROUNDS']} rounds per setting, ABBA-interleaved, "
          f"{conf['RAMP']} s ramp + {conf['RUNTIME']} s per run, "
          f"{conf['SIZE_MB']} MiB test file. IOPS are medians of the rounds;"
          " n is the number of runs per setting. fio CPU/IO is the fio "
          "job's usr+sys time per I/O; system CPU/IO is all busy guest CPU "
          "time (irq and softirq included) per completed device read, from "
          "/proc/stat and /proc/diskstats in the steady part of each run. "
          "Details: metadata.txt.", ""]
    for device in conf["DEVICES"].split():
        md += [f"## {device}", "", *ab_table(rows, device), "",
               f"![IOPS](plots/{device}-iops.png)",
               f"![CPU per I/O](plots/{device}-cpu.png)", ""]
    md += ["## Peak: uring-peak", "",
           f"One thread, registered file and buffers, depth {conf['PEAK_QD']}"
           ", batched submit and reap, IOPOLL where the device polls; "
           "CPU/IO from the tool's getrusage.", "", *peak_table(peak), "",
           f"## Profiles (perf record -g, event {meta.get('perf_event')})",
           "", f"{conf.get('PROFILE_ENGINE', 'io_uring')} at QD {conf['PEAK_QD']}, "
           f"{meta.get('guest_pinning')}"
           "; share of samples (self, --no-children) per symbol; full "
           "reports in perf/.", "",
           *perf_table(results / "perf"), "",
           "## Simple path taken (trace point hits of 64 reads)", "", "```",
           (share / "path-check.txt").read_text().rstrip(), "```", "",
           *layout_section(share, conf)]
    errors = (share / "errors.txt").read_text().strip()
    if errors:
        md += ["## Errors", "", "```", errors, "```", ""]
    (results / "summary.md").write_text("\n".join(md))
    plot(rows, conf, results / "plots")


if __name__ == "__main__":
    main()
