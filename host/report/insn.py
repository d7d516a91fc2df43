"""Exact instruction profiles from the QEMU plugin host/qemu-plugin/insn-count.c.

The guest (guest/bench/run-guest.sh, insn_profile) runs insn-mark, fio of
INSN_IOS reads, insn-mark, fio of 2 x INSN_IOS reads, insn-mark for each
profile; the plugin writes a snapshot of its cumulative counts at each mark
(snap-N.txt, three per profile, in the order insn/order.txt lists the
profiles). The second run's counts minus the first's are INSN_IOS reads'
worth of instructions: fio's start-up, the test file's open and fio's exit
are the same in both and cancel.
"""
import bisect
from pathlib import Path

TOP = 40


def load_symbols(path):
    """Sorted kernel text symbols: ([address], [name])."""
    syms = []
    for line in Path(path).read_text().splitlines():
        addr, _, name = line.split()[:3]
        syms.append((int(addr, 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_snapshot(path):
    """({kernel instruction address: runs}, user instructions)."""
    counts, user = {}, 0
    for line in Path(path).read_text().splitlines():
        key, value = line.split()
        if key == "user":
            user = int(value)
        else:
            counts[int(key, 16)] = int(value)
    return counts, user


def per_io(snaps, ios, addrs, names):
    """Per read, from three snapshots: ({symbol: instructions}, kernel,
    user). Symbols of the kernel's text; an address below the first symbol
    is '[unknown]'."""
    (c1, u1), (c2, u2), (c3, u3) = snaps
    by_sym = {}
    for addr in set(c2) | set(c3):
        first = c2.get(addr, 0) - c1.get(addr, 0)
        second = c3.get(addr, 0) - c2.get(addr, 0)
        diff = second - first
        if not diff:
            continue
        i = bisect.bisect_right(addrs, addr) - 1
        sym = names[i] if i >= 0 else "[unknown]"
        by_sym[sym] = by_sym.get(sym, 0) + diff
    by_sym = {k: v / ios for k, v in by_sym.items()}
    user = ((u3 - u2) - (u2 - u1)) / ios
    return by_sym, sum(by_sym.values()), user


def load(insn_dir, ios):
    """{profile name: (symbols, kernel, user)} for every profile listed in
    order.txt, or {} when there is none."""
    insn_dir = Path(insn_dir)
    order = insn_dir / "order.txt"
    if not order.exists():
        return {}
    names = order.read_text().split()
    snaps = sorted(insn_dir.glob("snap-*.txt"),
                   key=lambda p: int(p.stem.split("-")[1]))
    if len(snaps) != 3 * len(names):
        raise SystemExit(f"{insn_dir}: {len(snaps)} snapshots for "
                         f"{len(names)} profiles, want 3 each")
    addrs, syms = load_symbols(insn_dir / "kallsyms.txt")
    out = {}
    for i, name in enumerate(names):
        three = [load_snapshot(p) for p in snaps[3 * i:3 * i + 3]]
        out[name] = per_io(three, ios, addrs, syms)
    return out


def write_profiles(profiles, out_dir):
    """out_dir/NAME.txt: instructions per read per symbol, largest first."""
    out_dir.mkdir(exist_ok=True)
    for name, (syms, kernel, user) in profiles.items():
        lines = [f"# {name}: instructions per read (exact), kernel "
                 f"{kernel:,.1f}, user {user:,.1f}"]
        for sym, v in sorted(syms.items(), key=lambda kv: -abs(kv[1])):
            if abs(v) >= 0.05:
                lines.append(f"{v:12.2f}  {sym}")
        (out_dir / f"{name}.txt").write_text("\n".join(lines) + "\n")


def summary(profiles, cell_counts, ios, engine, qd, bs):
    """Markdown: one table of the largest symbols over all profiles, their
    totals against the unprofiled cells, and each filesystem's difference
    from raw with the same setting. cell_counts: {profile name: unprofiled
    instructions per read}."""
    names = list(profiles)
    if not names:
        return []
    raw = next((n for n in names if "-raw-" in n), None)
    diffs = [n for n in names if raw and n != raw and n.endswith("-s1")]
    score = {}
    for n in names:
        for sym, v in profiles[n][0].items():
            score[sym] = max(score.get(sym, 0), abs(v))
    for n in diffs:
        for sym in set(profiles[n][0]) | set(profiles[raw][0]):
            d = profiles[n][0].get(sym, 0) - profiles[raw][0].get(sym, 0)
            score[sym] = max(score.get(sym, 0), abs(d) * 2)
    top = sorted(score, key=score.get, reverse=True)[:TOP]

    def short(n):
        return n.split("-", 1)[1]

    head = [short(n) for n in names] + [f"{short(n)} − raw" for n in diffs]
    md = [f"{engine} QD{qd} reads of {bs}; each profile is the difference of "
          f"two fio runs of {ios:,} and {2 * ios:,} reads between markers, "
          "counted by the plugin per instruction address and divided by "
          f"{ios:,}, so a figure is what one read executes (start-up and "
          "exit cancel). Every vCPU's instructions count, as they do in "
          "guest time. Symbols from /proc/kallsyms; the whole list per "
          "profile: insn/NAME.txt.", "",
          "| symbol | " + " | ".join(head) + " |",
          "| --- |" + " ---: |" * len(head)]
    for sym in top:
        cols = [f"{profiles[n][0].get(sym, 0):,.1f}" for n in names]
        cols += [f"{profiles[n][0].get(sym, 0) - profiles[raw][0].get(sym, 0):+,.1f}"
                 for n in diffs]
        md.append(f"| {sym} | " + " | ".join(cols) + " |")
    rest = []
    for n in names:
        listed = sum(profiles[n][0].get(s, 0) for s in top)
        rest.append(profiles[n][1] - listed)
    rest_raw = rest[names.index(raw)] if raw else 0
    md.append("| *other kernel symbols* | "
              + " | ".join(f"{r:,.1f}" for r in rest)
              + "".join(f" | {rest[names.index(n)] - rest_raw:+,.1f}"
                        for n in diffs) + " |")

    def row(label, f):
        vals = [f(n) for n in names]
        cols = [f"{v:,.1f}" if v is not None else "-" for v in vals]
        cols += [f"{f(n) - f(raw):+,.1f}" if f(n) is not None
                 and f(raw) is not None else "-" for n in diffs]
        md.append(f"| **{label}** | " + " | ".join(cols) + " |")

    row("kernel", lambda n: profiles[n][1])
    row("user (fio)", lambda n: profiles[n][2])
    row("total", lambda n: profiles[n][1] + profiles[n][2])
    row("unprofiled cell, 1e9 / IOPS", lambda n: cell_counts.get(n))
    md.append("")
    return md
