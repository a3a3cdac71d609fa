# SPDX-License-Identifier: MIT
"""This host's unix ceiling: what a bigger send buffer can gain here, with
no library and no NBD program involved.  A raw socketpair
(sb-socketpair-bench) moves 2 MiB NBD read replies with the default buffer
and with a bigger one, in turns; the gain depends on the host and its load
(from about 2x down to slower than the default on machines of one kind),
so it is measured, never promised.

The socketpair workload of sockboost bench, the demo and sockboost doctor
all measure it here.
"""

import os

from .. import paths
from . import rounds
from .procs import Skip, config_env, last_json, run_command

GiB = 1 << 30
# What doctor measures: short rounds, about a second in all.
ROUNDS = 5
TOTAL = 256 << 20
SIZE = "2M"
HELPER = "sb-socketpair-bench"


def socketpair_run(total, queue_depth=1, sndbuf=None, request_size=None):
    """One run of sb-socketpair-bench, never under the library: its JSON
    (bytes, seconds, throughput, reads_per_reply, sndbuf granted...)."""
    cmd = [paths.helper(HELPER),
           "--json", "--queue-depth", str(queue_depth), "--total", str(total)]
    if sndbuf is not None:
        cmd += ["--sndbuf", str(sndbuf)]
    if request_size is not None:
        cmd += ["--request-size", str(request_size)]
    out, _ = run_command(cmd, config_env("default", paths.library(), None))
    return last_json(out)


def measure(size=SIZE, repeat=ROUNDS, total=TOTAL):
    """The default send buffer against SIZE, REPEAT rounds in turns of
    TOTAL bytes each: a dict with the ratio of the median throughputs,
    both medians (bytes per second), the buffer the kernel granted (tb),
    the rounds, how many SIZE won and the verdict.  Raises procs.Skip
    when sb-socketpair-bench is missing, procs.RunError when it fails."""
    if not os.access(paths.helper(HELPER), os.X_OK):
        raise Skip(paths.missing(paths.helper(HELPER)))
    runs = rounds.take_turns(
        ["default", size], repeat,
        lambda mode, _: socketpair_run(
            total, sndbuf=None if mode == "default" else size))
    plain = [j["throughput"] for j in runs["default"]]
    big = [j["throughput"] for j in runs[size]]
    v = rounds.verdict(big, plain, True)
    pm, bm = rounds.median(plain), rounds.median(big)
    return {"ratio": round(bm / pm, 2), "tb": runs[size][-1]["sndbuf"],
            "default_bytes_per_second": round(pm),
            "boosted_bytes_per_second": round(bm), "rounds": repeat,
            "faster_rounds": v.won, "verdict": v.text}


def report_lines(c):
    """The ceiling C (from measure()) in words, as sockboost doctor shows
    it: the figure and verdict first, then what it is."""
    return [
        "%.2fx: tb %d against the default, %s" % (c["ratio"], c["tb"],
                                                   c["verdict"]),
        "(a raw socketpair moving 2 MiB replies, no library: %.2f against "
        "%.2f GiB/s," % (c["boosted_bytes_per_second"] / GiB,
                         c["default_bytes_per_second"] / GiB),
        "medians of %d short rounds; what a bigger buffer can gain on this "
        "host now;" % c["rounds"],
        "for a steadier figure: make demo, or sockboost bench --workloads "
        "socketpair)"]
