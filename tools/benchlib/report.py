# SPDX-License-Identifier: MIT
"""The benchmark's report: medians per configuration, one table per
case, a summary against the project's goals, the buffer sweep as a
matrix and as plots."""

import os
import platform
import subprocess
import sys
import tempfile
import time

from sockboostlib import paths

from . import programs, roots
from sockboostlib.measure.rounds import median, paired_speedups, speedup

GiB = 1 << 30

# Per metric: unit, format, whether more is better, and whether the
# table shows the wall time of a run beside it (not when the runs last a
# fixed time, nor when the wall time is the metric itself).
METRICS = {
    "throughput": ("GiB/s", lambda v: "%.2f" % (v / GiB), True, True),
    "iops": ("IOPS", lambda v: "%.0f" % v, True, False),
    "latency": ("ms per request", lambda v: "%.3f" % (v * 1e3), False, True),
    "ns_per_call": ("ns per call", lambda v: "%.1f" % v, False, True),
    "copy_time": ("s per copy", lambda v: "%.3f" % v, False, False),
}


def higher_is_better(metric):
    return METRICS[metric][2]


def runs(rows, workload, case, config):
    """The successful runs of one configuration of a case."""
    return [r for r in rows if r["workload"] == workload
            and r["case"] == case and r["config"] == config
            and r["status"] == "ok"]


def medians(rows, workload, case, config):
    ok = runs(rows, workload, case, config)
    if not ok:
        return None
    m = {k: median([float(r[k]) for r in ok])
         for k in ("seconds", "user", "sys", "value")}
    rpr = [float(r["reads_per_reply"]) for r in ok
           if r.get("reads_per_reply") not in (None, "")]
    m["reads_per_reply"] = median(rpr) if rpr else None
    m["runs"] = len(ok)
    return m


def ratio(m, base, metric):
    """Speed-up of M over BASE: above 1 is better for every metric."""
    if m is None or base is None:
        return None
    return speedup(m["value"], base["value"], higher_is_better(metric))


def own_default(config):
    """The configuration CONFIG is compared with: "default" of the same
    programs (of its root, for a root's configuration)."""
    label = roots.split(config)[0]
    return "default" if label is None else label + ":default"


def case_table(rows, workload, case, metric, configs):
    unit, fmt, _, timed = METRICS[metric]
    has_reads = workload == "socketpair"
    # For the overhead the question is the cost, not a speed-up.
    cost = metric == "ns_per_call"
    # A server that needs no library: what the library should reach.
    ref = medians(rows, workload, case, "reference") \
        if "reference" in configs else None
    cols = ["config"] + (["time (s)"] if timed else []) \
        + ["user (s)", "sys (s)", unit] \
        + (["reads/reply"] if has_reads else []) \
        + ["cost vs default" if cost else "vs default"] \
        + (["speed vs reference"] if ref else [])
    lines = ["**%s**" % case, "", "| %s |" % " | ".join(cols),
             "|---|" + "---:|" * (len(cols) - 1)]
    for config in configs:
        m = medians(rows, workload, case, config)
        if m is None:
            lines.append("| %s | failed |%s" % (config, " |" * (len(cols) - 2)))
            continue
        r = ratio(m, medians(rows, workload, case, own_default(config)),
                  metric)
        if r is None:
            shown = "-"
        elif cost:
            shown = "%+.1f%%" % ((1 / r - 1) * 100)
        else:
            shown = "%.2fx" % r
        cells = [config] + (["%.3f" % m["seconds"]] if timed else []) \
            + ["%.3f" % m["user"], "%.3f" % m["sys"], fmt(m["value"])] \
            + (["%.1f" % m["reads_per_reply"]] if has_reads else []) \
            + [shown] + (["%.0f%%" % (100 * ratio(m, ref, metric))]
                         if ref else [])
        lines.append("| %s |" % " | ".join(cells))
    return lines + [""]


# (what, workload, case, config, reference (workload, case, config) or
# None for the default of the same case, goal text, kind)
GOALS = [
    ("raw socketpair, 2M vs default, qd 1", "socketpair", "qd 1", "2M",
     None, "about 2.0x", "ratio"),
    ("raw socketpair, 2M vs default, qd 4", "socketpair", "qd 4", "2M",
     None, "about 2.9x", "ratio"),
    ("sbnbd read qd 1, 2M vs its default", "sbnbd", "read qd 1", "2M",
     None, ">= 1.8x", "ratio"),
    ("sbnbd read qd 4, 2M vs its default", "sbnbd", "read qd 4", "2M",
     None, ">= 1.8x", "ratio"),
    ("sbnbd read qd 1, 2M, share of raw socketpair", "sbnbd", "read qd 1",
     "2M", ("socketpair", "qd 1", "2M"), ">= 85%", "share"),
    ("sbnbd read qd 4, 2M, share of raw socketpair", "sbnbd", "read qd 4",
     "2M", ("socketpair", "qd 4", "2M"), ">= 85%", "share"),
    ("qemu-img convert from qemu-nbd, 2M", "qemu",
     "qemu-img convert from qemu-nbd", "2M", None, "about 1.10x", "ratio"),
    ("qemu-img convert into qemu-nbd, 2M", "qemu",
     "qemu-img convert into qemu-nbd", "2M", None, "about 1.08x", "ratio"),
    ("qemu-img convert, sparse image over TCP, library vs plain", "tcp",
     "qemu-img convert, sparse raw image", "library", None, ">= 10x",
     "ratio"),
    ("qemu-img convert, sparse image over TLS, library vs plain", "tcp",
     "qemu-img convert, sparse raw image, TLS", "library", None, ">= 10x",
     "ratio"),
    ("qemu-img convert, ext4 image over TLS, library vs plain", "tcp",
     "qemu-img convert, ext4 qcow2 image, TLS", "library", None, ">= 2x",
     "ratio"),
    ("nbdcopy, sparse image over TCP, library vs plain", "tcp",
     "nbdcopy, sparse raw image", "library", None, "faster", "ratio"),
    ("qemu-img convert, sparse image over TCP, library vs reference", "tcp",
     "qemu-img convert, sparse raw image", "library",
     ("tcp", "qemu-img convert, sparse raw image", "reference"), ">= 90%",
     "share"),
    ("qemu-img convert, ext4 image over TLS, library vs reference", "tcp",
     "qemu-img convert, ext4 qcow2 image, TLS", "library",
     ("tcp", "qemu-img convert, ext4 qcow2 image, TLS", "reference"),
     ">= 90%", "share"),
    ("nbdcopy, ext4 image over TLS, library vs reference", "tcp",
     "nbdcopy, ext4 qcow2 image, TLS", "library",
     ("tcp", "nbdcopy, ext4 qcow2 image, TLS", "reference"), ">= 90%",
     "share"),
    ("fio 4K randread qd 1 over TCP, IOPS", "tcp",
     "fio 4K randread qd 1 from qemu-nbd", "library", None,
     "none expected (one sendmsg per reply)", "ratio"),
    ("naive sbnbd-client write latency over TCP", "tcp",
     "naive sbnbd-client 4K write qd 1", "library", None,
     ">= 10x (no Nagle stall)", "ratio"),
    ("library cost, 1-byte write() to /dev/null", "overhead",
     "1-byte write() to /dev/null", "library", None, "<= 3%", "cost"),
    ("library cost, 1-byte send() on a socketpair", "overhead",
     "1-byte send() on a socketpair", "library", None, "<= 3%", "cost"),
]


def by_rep(rows, workload, case, config):
    """{rep: value} of the successful runs of one configuration."""
    return {r["rep"]: float(r["value"])
            for r in runs(rows, workload, case, config)}


def goal_speedups(rows, goal):
    """(speed-up of the medians, speed-ups of the runs side by side) of a
    GOALS entry, or None when either side has no successful run."""
    _, w, case, config, ref, _, _ = goal
    base_key = ref or (w, case, "default")
    m, base = medians(rows, w, case, config), medians(rows, *base_key)
    if m is None or base is None:
        return None
    metric = next(r["metric"] for r in rows
                  if r["workload"] == w and r["case"] == case)
    mine, theirs = by_rep(rows, w, case, config), by_rep(rows, *base_key)
    reps = sorted(set(mine) & set(theirs))
    paired = paired_speedups([mine[k] for k in reps],
                             [theirs[k] for k in reps],
                             higher_is_better(metric))
    return ratio(m, base, metric), paired


def shown_speedup(r, kind):
    if kind == "ratio":
        return "%.2fx" % r
    if kind == "share":
        return "%.0f%%" % (r * 100)
    return "%+.1f%%" % ((1 / r - 1) * 100)


def goal_table(args, rows):
    """The summary: each goal's figure, with the range of its runs; a
    --quick run (one run each, tiny sizes) is a smoke test, so its
    figures are shown without the goals."""
    if args.quick:
        lines = ["## summary (smoke test: one run each, not to be compared "
                 "with the goals)", "", "| what | measured |", "|---|---:|"]
    else:
        lines = ["## summary: measured against the goals", "",
                 "| what | goal | measured | range of the runs |",
                 "|---|---|---:|---:|"]
    for goal in GOALS:
        found = goal_speedups(rows, goal)
        if found is None or found[0] is None:
            continue
        what, kind, text = goal[0], goal[6], goal[5]
        shown = shown_speedup(found[0], kind)
        if args.quick:
            lines.append("| %s | %s |" % (what, shown))
            continue
        ends = [shown_speedup(r, kind) for r in (min(found[1]),
                                                 max(found[1]))]
        # A cost falls as the speed-up rises: lowest first either way.
        spread = "-" if len(found[1]) < 2 else " to ".join(
            ends[::-1] if kind == "cost" else ends)
        lines.append("| %s | %s | %s | %s |" % (what, text, shown, spread))
    return lines + [""] if len(lines) > 4 else []


SMOKE_TEST = ("**A smoke test.** --quick runs each configuration once, "
              "on tiny sizes, to show that every workload runs here; one "
              "run on a shared machine is noise, so its figures say "
              "nothing about the goals. For figures to compare, run "
              "without --quick (3 or more interleaved runs, medians and "
              "their range).")


def swept(planned):
    """(workload, case, title) of every case that sweeps buffer sizes."""
    return [(w, case, case if w in case else "%s %s" % (w, case))
            for w, cases in planned
            for case, metric, configs, _ in cases
            if metric == "throughput" and len(configs) > 2]


def sweep_matrix(args, planned, rows):
    """One line per swept case: GiB/s and speed-up at each buffer size,
    the peak in bold."""
    head = "| case | " + " | ".join(args.sizes) + " |"
    lines = ["## throughput by send buffer: GiB/s (speed-up), peak in bold",
             "", head, "|---|" + "---:|" * len(args.sizes)]
    for w, case, title in swept(planned):
        base = medians(rows, w, case, "default")
        ms = [medians(rows, w, case, c) for c in args.sizes]
        peak = max((m["value"] for m in ms if m), default=None)
        cells = []
        for m in ms:
            cell = "-" if m is None else "%.2f (%.2fx)" % (
                m["value"] / GiB, ratio(m, base, "throughput") or 0)
            cells.append("**%s**" % cell if m and m["value"] == peak
                         else cell)
        lines.append("| %s | %s |" % (title, " | ".join(cells)))
    return lines + [""] if len(lines) > 4 else []


def with_library(configs):
    """The configuration that stands for "with the library" in a side by
    side of roots: "library", else 2M, else the largest buffer."""
    mine = [c for c in configs if roots.split(c)[0] is None]
    for c in ("library", "2M"):
        if c in mine:
            return c
    sized = [c for c in mine if c not in ("default", "reference")]
    return sized[-1] if sized else None


def qemu_version(text):
    """(major, minor, ...) of qemu-nbd in a versions() string, or ()."""
    for part in text.split(", "):
        if part.startswith("qemu-nbd "):
            return tuple(int(x) for x in part.split()[1].split(".")
                         if x.isdigit())
    return ()


def roots_table(args, planned, rows):
    """Each rooted case with each root's programs beside this machine's:
    alone, with the library, and against the newest QEMU alone."""
    if not args.roots:
        return []
    sources = [("", "this machine", programs.versions())] + [
        (r.label + ":", r.label, programs.versions(r)) for r in args.roots]
    newest = max(sources, key=lambda s: qemu_version(s[2]))
    lines = ["## the same cases with other programs (--root)", "",
             "Newest QEMU here: %s (%s). \"vs newest alone\" is each "
             "configuration's speed as a share of it without the library."
             % (newest[1], newest[2]), ""]
    for prefix, name, found in sources:
        lines.append("- %s: %s" % (name, found or "no NBD programs"))
    lines += ["", "| case | programs | alone | with the library | "
              "library vs alone | alone vs newest alone | "
              "library vs newest alone |", "|---|---|---:|---:|---:|---:|---:|"]
    for w, cases in planned:
        if w not in roots.ROOTED_WORKLOADS:
            continue
        for case, metric, configs, fn in cases:
            lib = with_library(configs)
            if lib is None or not getattr(fn, "uses_roots", True):
                continue
            fmt = METRICS[metric][1]
            top = medians(rows, w, case, newest[0] + "default")
            for prefix, name, _ in sources:
                alone = medians(rows, w, case, prefix + "default")
                boosted = medians(rows, w, case, prefix + lib)
                cells = [case, name] + [
                    fmt(m["value"]) if m else "-" for m in (alone, boosted)]
                cells += ["-" if r is None else "%.2f" % r for r in (
                    ratio(boosted, alone, metric), ratio(alone, top, metric),
                    ratio(boosted, top, metric))]
                lines.append("| %s |" % " | ".join(cells))
    return lines + [""]


def markdown(args, titles, notes, planned, skipped, rows):
    """The whole report; TITLES and NOTES: per workload, its heading and
    the paragraphs that explain its tables."""
    out = ["# sockboost bench", "", "```", machine_line(args), "```", "",
           "Medians of %d run(s) per configuration, interleaved; "
           "\"default\" = no library; a size = libsockboost.so with "
           "SOCKBOOST_SNDBUF=size in both processes; \"library\" = its "
           "defaults; \"host\" = no library, sockboost host on for the "
           "processes' cgroup. \"vs default\" is the speed-up (above 1 is "
           "better). "
           "time = wall seconds of the measured command; user/sys = CPU "
           "seconds of every process of the run.%s" % (
               args.repeat, " LABEL:CONFIG = CONFIG with the NBD programs "
               "of --root LABEL, compared with LABEL:default." if args.roots
               else ""), ""]
    if args.quick:
        out += [SMOKE_TEST, ""]
    out += goal_table(args, rows)
    out += roots_table(args, planned, rows)
    out += sweep_matrix(args, planned, rows)
    for workload, cases in planned:
        out += ["## %s: %s" % (workload, titles[workload]), ""]
        out += [p + "\n" for p in notes.get(workload, [])]
        for case, metric, configs, _ in cases:
            out += case_table(rows, workload, case, metric, configs)
    for w, why in skipped.items():
        out += ["## %s: skipped" % w, "", "skipped: " + why, ""]
    return "\n".join(out)


def machine_line(args):
    def read(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return "?"
    return ("%s; %d CPUs; Linux %s; wmem_default %s, wmem_max %s; "
            "data %d MiB per run; %s; %s" % (
                " ".join(["tools/sockboost bench"] + sys.argv[1:]),
                os.cpu_count() or 0, platform.release(),
                read("/proc/sys/net/core/wmem_default"),
                read("/proc/sys/net/core/wmem_max"),
                args.data_size >> 20, programs.versions() or "no NBD programs",
                time.strftime("%Y-%m-%d %H:%M")))


def plot_data(args, planned, rows):
    """gnuplot's data: one block per swept case, a quoted title, then
    "index buffer GiB/s speed-up" rows."""
    lines = []
    for w, case, title in swept(planned):
        base = medians(rows, w, case, "default")
        lines.append('"%s"' % title)
        for i, config in enumerate(args.sizes):
            m = medians(rows, w, case, config)
            if m is not None:
                r = ratio(m, base, "throughput") or 0
                lines.append("%d %s %.4f %.4f" % (i, config,
                                                  m["value"] / GiB, r))
        lines += ["", ""]
    return "\n".join(lines) + "\n"


def plot(args, planned, rows, out):
    """Throughput against buffer size, one line per case of a sweep, into
    OUT (an outdir.OutDir)."""
    series = swept(planned)
    if not series:
        return []
    return gnuplot(out, ["throughput.dat", "throughput.png", "throughput.svg"],
                   plot_data(args, planned, rows),
                   paths.data("benchlib/bench-throughput.gp"),
                   "nseries=%d" % len(series))


def gnuplot(out, names, data, script, settings):
    """Run gnuplot SCRIPT on DATA (text) with SETTINGS (more gnuplot -e
    statements); NAMES: the data file, then the PNG and SVG plots SCRIPT
    makes of its base name.  gnuplot opens its output files as any
    program does, following links: it writes into a private directory of
    ours, and the files are then copied into OUT safely.  Returns the
    lines to print."""
    if programs.locate("gnuplot") is None:
        return ["plot skipped: gnuplot is not installed"]
    with tempfile.TemporaryDirectory(prefix="sockboost-plot-") as private:
        made = [os.path.join(private, n) for n in names]
        with open(made[0], "w") as f:
            f.write(data)
        r = subprocess.run(programs.program("gnuplot") + [
            "-e", "datafile='%s'; outbase='%s'; %s"
            % (made[0], os.path.splitext(made[0])[0], settings), script],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            return ["plot failed: " + r.stderr.strip()]
        for name, path in zip(names, made):
            with open(path, "rb") as f:
                out.write(name, f.read())
    return ["plots: %s %s" % (out.name(names[1]), out.name(names[2]))]
