#!/usr/bin/env python3
"""Turn what bench/run-guest.sh left in the 9p share into a results folder.

    bench/report.py SHARE RESULTS

SHARE holds bench.conf, host-meta.txt, guest-meta.txt, path-check.txt,
errors.txt and the raw runs (fio/*.json, stat/*, peak/*.txt, perf/*.txt).
RESULTS gets the raw fio JSON, the stat snapshots and perf reports as they
came, runs.csv (one row per run), peak.csv, summary.md (the A/B tables
the way the upstream cover letter shows them, plus min-max and CPU per
I/O), metadata.txt and plots/*.png (gnuplot). Standard library only.
"""
import csv
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# /proc/stat counts in USER_HZ ticks; 100 on x86.
USER_HZ = 100
# The symbols the upstream profile blames for the slow path, and the
# prefix of the fast path's own functions.
SLOW_SYMBOLS = ["__iomap_dio_rw", "iomap_iter", "iomap_dio_bio_iter",
                "kfree", "iomap_dio_complete"]
FAST_PREFIX = "iomap_dio_simple"
TAG = re.compile(r"(?P<device>[^-]+)-(?P<target>[^-]+)-(?P<engine>[^-]+)"
                 r"-qd(?P<qd>\d+)-s(?P<s>[01])-r(?P<round>\d+)$")
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


def load_runs(share):
    rows = []
    for path in sorted((share / "fio").glob("*.json")):
        m = TAG.match(path.stem)
        text = path.read_text()
        # fio may print a warning line before the JSON document.
        job = json.loads(text[text.index("{"):])["jobs"][0]
        read = job["read"]
        ios = read["total_ios"]
        runtime = job["job_runtime"] / 1000
        busy, reads = system_cpu(share / "stat" / path.stem)
        rows.append({
            "device": m["device"], "target": m["target"],
            "engine": m["engine"], "qd": int(m["qd"]),
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
    rows.sort(key=lambda r: (r["device"], r["target"], r["engine"], r["qd"],
                             r["round"], r["simple_read"]))
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
        lines.append(
            f"| {k[0]} | {k[1]} | {k[2]} | {fmt_int(m0)} | {fmt_int(m1)} "
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
    side) and CPU per I/O vs QD, one panel per target and engine."""
    targets, engines = conf["TARGETS"].split(), conf["ENGINES"].split()
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


def main():
    share, results = Path(sys.argv[1]), Path(sys.argv[2])
    conf = read_conf(share / "bench.conf")
    meta = read_conf(share / "guest-meta.txt")
    rows, peak = load_runs(share), load_peak(share)
    for sub in ("fio", "stat", "peak", "perf"):
        shutil.copytree(share / sub, results / sub)
    (results / "plots").mkdir()
    write_csv(results / "runs.csv", rows)
    write_csv(results / "peak.csv", peak)
    shutil.copy(share / "path-check.txt", results)

    meta_text = "".join((share / n).read_text() for n in
                        ("host-meta.txt", "guest-meta.txt", "bench.conf"))
    (results / "metadata.txt").write_text(meta_text)

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
           (share / "path-check.txt").read_text().rstrip(), "```", ""]
    errors = (share / "errors.txt").read_text().strip()
    if errors:
        md += ["## Errors", "", "```", errors, "```", ""]
    (results / "summary.md").write_text("\n".join(md))
    plot(rows, conf, results / "plots")


if __name__ == "__main__":
    main()
