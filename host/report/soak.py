#!/usr/bin/env python3
"""make soak's README: one table of the model tester's runs per kernel.

    soak.py RESULTS COMMIT COMMAND

RESULTS holds one folder per kernel (named in RESULTS/order) with the
guest's runs.tsv, splats.txt, kernel.txt, failures/ and the host's
host-meta.txt; writes RESULTS/README.md.
"""
import csv
import os
import sys


def meta(path):
    """The KEY=VALUE lines of a host-meta.txt, as a dict."""
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


def kernel_section(results, label):
    folder = os.path.join(results, label)
    host = meta(os.path.join(folder, "host-meta.txt"))
    with open(os.path.join(folder, "kernel.txt")) as f:
        release = f.read().strip()
    with open(os.path.join(folder, "runs.tsv")) as f:
        runs = list(csv.DictReader(f, delimiter="\t"))
    with open(os.path.join(folder, "splats.txt")) as f:
        splats = [line for line in f if line.strip()]
    per_fs = {}
    for run in runs:
        fs = per_fs.setdefault(run["fs"], {"runs": 0, "ops": 0, "secs": 0,
                                           "failed": [], "seeds": []})
        if run["result"].startswith("skipped"):
            fs["skipped"] = run["result"]
            continue
        fs["runs"] += 1
        fs["ops"] += int(run["ops"])
        fs["secs"] += int(run["seconds"])
        fs["seeds"].append(int(run["seed"]))
        if run["result"] != "ok":
            fs["failed"].append(run["seed"])
    lines = [f"## {label}: {release}", "",
             f"bzImage sha256 {host['bzimage_sha256']}, {host['accel']}, "
             f"{host['boot_seconds']} s for the boot.", "",
             "| filesystem | runs | seeds | operations | seconds | ops/s | failed runs (seed) |",
             "| --- | ---: | --- | ---: | ---: | ---: | --- |"]
    for name, fs in per_fs.items():
        if "skipped" in fs:
            lines.append(f"| {name} | 0 | - | 0 | 0 | - | {fs['skipped']} |")
            continue
        rate = fs["ops"] / fs["secs"] if fs["secs"] else 0
        seeds = f"{min(fs['seeds'])}-{max(fs['seeds'])}" if fs["seeds"] else "-"
        failed = ", ".join(fs["failed"]) or "none"
        lines.append(f"| {name} | {fs['runs']} | {seeds} (+instance) | "
                     f"{fs['ops']:,} | {fs['secs']:,} | {rate:,.0f} | {failed} |")
    crash = os.path.join(folder, "crash.tsv")
    if os.path.exists(crash):
        with open(crash) as f:
            cuts = list(csv.DictReader(f, delimiter="\t"))
        if cuts:
            lines += ["", "Power cuts (guest/tests/crash.sh; each filesystem's checks "
                      "in crash-FS.txt):", "",
                      "| filesystem | seeds | ops per cycle | checks passed | failed | "
                      "known defects | seconds |",
                      "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
            for cut in cuts:
                seeds = cut["seeds"].split()
                span = f"{seeds[0]}-{seeds[-1]}" if seeds else "-"
                lines.append(f"| {cut['fs']} | {span} | {cut['ops']} | {cut['passed']} | "
                             f"{cut['failed']} | {cut['known']} | {cut['seconds']} |")
    lines += ["", "Kernel log reports: " +
              ("none." if not splats else f"{len(splats)}, in {label}/splats.txt."),
              ""]
    return lines


def main():
    results, commit, command = sys.argv[1:4]
    with open(os.path.join(results, "order")) as f:
        labels = [line.strip() for line in f if line.strip()]
    out = ["# Model tester soak", "",
           f"`{command}` at commit {commit}: fsmodel (guest/tools/fsmodel.c) "
           "over many seeds on each filesystem's first variant "
           "(guest/tests/soak.sh), two instances at once, simple_read 1 and 0 "
           "in turn, an unmount and mount every quarter of a run. Wall-clock "
           "rates under TCG on a shared host: an indication, not a measure. "
           "A failed run's logs and shrunk sequences are in "
           "LABEL/failures/.", ""]
    for label in labels:
        out += kernel_section(results, label)
    with open(os.path.join(results, "README.md"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
