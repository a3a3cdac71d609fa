# SPDX-License-Identifier: MIT
"""make demo (tools/demo): what libsockboost.so changes on this machine,
end to end, in under a minute, with a short report of its own.

TCP: a fragmented sparse image copied from qemu-nbd over loopback (or,
without a qemu-nbd that stalls, sbnbd-server in a naive mode with the
same stall), the server plain and under the library.  unix: sbnbd-client
reads an export from sbnbd-server over a private unix socket, both plain
and both under the library, beside this host's raw socketpair ceiling.
Modes take turns (benchlib.rounds); each line shows the median and the
range of the rounds, and a verdict per round.
"""

import contextlib
import filecmp
import os
import shutil
import signal
import socket
import sys
import tempfile
import types

from sockboostlib import paths
from sockboostlib.command import Command, Failure
from sockboostlib.options import Option, Parser, choice, positive_int
from sockboostlib.options import size_as_typed
from sockboostlib.sockets import SsError, process_sockets

from sockboostlib.measure import ceiling, rounds
from sockboostlib.measure.procs import RunError, Server, Skip, config_env
from sockboostlib.measure.procs import free_tcp_port, last_json, run_command

from . import images, programs

COMMAND = Command(None, program="demo", help_command="tools/demo")
# A plain TCP round takes seconds and its stalls hardly vary: at most 3.
TCP_MAX_ROUNDS = 3
# The TCP image: a 4 KiB extent every 128 KiB, 64 of them: about 2.6 s
# for a plain copy from qemu-nbd 7.2 (one delayed ACK per extent).
SPARSE_EXTENTS = 64
# The naive sbnbd case: 4 KiB reads one at a time, one stall each.
NAIVE_READS = 50
GiB = 1 << 30
# Each mode's configuration (procs.config_env): the library at its
# defaults, whatever SOCKBOOST_* the caller's environment holds.
CONFIG = {"plain": "default", "boosted": "library"}
IPROUTE2 = "ss is missing: it comes with iproute2 (Debian: apt-get " \
    "install iproute2)"

DESCRIPTION = """\
Show what libsockboost.so changes on this machine, plain and boosted in turn.

TCP: qemu-img convert copies a sparse image (4 KiB of data every 128 KiB)
from qemu-nbd over 127.0.0.1, the server plain and under the library
(ROUNDS rounds each, at most %d).  qemu-nbd before 8.0 leaves Nagle's
algorithm on, so each data extent waits for a delayed ACK.  Without such a
qemu-nbd (or with --tcp sbnbd): sbnbd-client reads %d blocks of 4 KiB, one
at a time, from sbnbd-server --split-replies --no-nodelay, which has the
same stall.  --tcp off leaves TCP out.

unix: sbnbd-client reads SIZE from sbnbd-server over a unix socket, ROUNDS
times each, and the raw socketpair ceiling of this host (sb-socketpair-bench,
default buffer against 2 MiB) is measured in the same turns.  The send
buffer of each server's connections is read from outside with ss (from
iproute2).

Each result shows the median, the range of the rounds and the ratio, and
whether one mode was faster in every round.""" % (TCP_MAX_ROUNDS, NAIVE_READS)


PARSER = Parser("Usage: tools/demo [OPTION...]", DESCRIPTION, [
    Option("--size", "bytes read per unix round (default 4G)", "SIZE",
           size_as_typed),
    Option("--rounds", "rounds of each mode (default 5)", "ROUNDS",
           positive_int),
    Option("--request-size", "bytes per NBD read request (default 2M)",
           "SIZE", size_as_typed),
    Option("--queue-depth", "requests in flight (default 4)", "N",
           positive_int),
    Option("--tcp", "the TCP part's server: auto, qemu-nbd, sbnbd or off "
           "(default auto: qemu-nbd when the one installed stalls)",
           "SERVER", choice("auto", "qemu-nbd", "sbnbd", "off"))])


def parse_args(argv):
    args = PARSER.parse(argv)
    args.size = args.size or "4G"
    args.rounds = args.rounds or 5
    args.request_size = args.request_size or "2M"
    args.queue_depth = args.queue_depth or 4
    args.tcp = args.tcp or "auto"
    try:
        need_pieces(args)
    except Skip as e:
        raise Failure(str(e)) from None
    if args.tcp == "auto":
        args.tcp = "qemu-nbd" if qemu_nbd_stalls() else "sbnbd"
    return args


def qemu_nbd_version():
    """qemu-nbd's major version, or None without qemu-nbd and qemu-img."""
    if not all(programs.locate(n) for n in ("qemu-nbd", "qemu-img")):
        return None
    words = (programs.version("qemu-nbd", "--version") or "").split()
    major = words[1].split(".")[0] if len(words) > 1 else ""
    return int(major) if major.isdigit() else None


def qemu_nbd_stalls():
    """qemu-nbd 8.0 and later set TCP_NODELAY and cork replies."""
    major = qemu_nbd_version()
    return major is not None and major < 8


class Demo:
    """The run's options, its private directory and its servers."""

    def __init__(self, args, tmpdir, servers):
        self.args, self.tmpdir, self.servers = args, tmpdir, servers
        self.logdir = os.path.join(tmpdir, "logs")
        os.mkdir(self.logdir)

    def env(self, mode):
        return config_env(CONFIG[mode], paths.library(), self.logdir)

    def start(self, name, mode, cmd):
        """Start server CMD (its pid file at the place given to it by
        CMD(where)) in MODE; return where it lives."""
        where = types.SimpleNamespace(tmpdir=os.path.join(self.tmpdir, name))
        os.mkdir(where.tmpdir)
        where.pidfile = os.path.join(where.tmpdir, "pid")
        where.sock = os.path.join(where.tmpdir, "sock")
        where.port = free_tcp_port()
        server = self.servers.enter_context(
            Server(cmd(where), self.env(mode), where))
        where.pid = server.proc.pid
        return where


# ---- the report ---------------------------------------------------------

def result_line(label, extra, values, base, higher, decimals):
    """LABEL and EXTRA, then the median of VALUES, their range and the
    ratio to BASE (the plain median)."""
    m, lo, hi = rounds.spread(values)
    r = rounds.speedup(m, base, higher) or 0
    f = "%%.%df" % decimals
    return "%-10s %-18s %8s %17s %7s" % (
        label, extra, f % m, (f + "-" + f) % (lo, hi),
        "%.0f" % r if r >= 100 else "%.2f" % r)


def verdict_line(name, base_name, values, bases, higher):
    v = rounds.verdict(values, bases, higher)
    hint = "" if v.clear or len(values) < rounds.MIN_ROUNDS else \
        " (on an idle machine, or with more --rounds)"
    return "  %s against %s, round by round: %s%s" % (name, base_name,
                                                       v.text, hint)


def say(*lines):
    for line in lines:
        print(line, flush=True)


def main(argv):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="sockboost-demo.") as tmp, \
                contextlib.ExitStack() as servers:
            demo = Demo(args, tmp, servers)
            if args.tcp != "off":
                tcp_part(demo)
                say("")
            unix_part(demo)
    except (Skip, RunError, OSError) as e:
        raise Failure(str(e)) from None
    return 0


def need_pieces(args):
    programs.need("sbnbd-server", "sbnbd-client", "sb-socketpair-bench")
    programs.need_library()
    if args.tcp == "qemu-nbd":
        try:
            programs.need("qemu-nbd", "qemu-img")
        except Skip as e:
            raise Skip("--tcp qemu-nbd: %s (Debian: qemu-utils)" % e)


# ---- TCP ----------------------------------------------------------------

def tcp_part(demo):
    one = qemu_nbd_copy(demo) if demo.args.tcp == "qemu-nbd" \
        else naive_read(demo)
    ms = rounds.take_turns(
        ["plain", "boosted"], min(demo.args.rounds, TCP_MAX_ROUNDS),
        lambda mode, _: one(mode),
        lambda n, f: say("  round %d: plain %.1f ms, boosted %.1f ms"
                         % (n, f["plain"], f["boosted"])))
    base = rounds.median(ms["plain"])
    say("", "%-10s %-18s %8s %17s %7s" % ("mode", "", "ms", "min-max",
                                          "ratio"),
        result_line("plain", "", ms["plain"], base, False, 1),
        result_line("boosted", "", ms["boosted"], base, False, 1),
        verdict_line("boosted", "plain", ms["boosted"], ms["plain"], False))
    major = qemu_nbd_version()
    if major is not None and major >= 8:
        say("  (qemu-nbd 8.0 and later set TCP_NODELAY and cork replies "
            "themselves: no stall to remove)" if demo.args.tcp == "qemu-nbd"
            else "  (the qemu-nbd installed here corks its replies itself: "
            "it has no such stall)")


def qemu_nbd_copy(demo):
    """Serve a sparse image from qemu-nbd, plain and boosted; return a
    function timing one checked copy from a mode's server, in ms."""
    image = os.path.join(demo.tmpdir, "sparse.img")
    copy = os.path.join(demo.tmpdir, "copy.img")
    images.make_sparse_image(image, SPARSE_EXTENTS << 17, 128 << 10, 4 << 10)
    servers = {mode: demo.start("qemu-" + mode, mode, lambda w: programs.program(
        "qemu-nbd") + ["-r", "-t", "-f", "raw", "-b", "127.0.0.1", "-p",
                       str(w.port), "--pid-file", w.pidfile, image])
        for mode in CONFIG}

    def one(mode):
        if os.path.exists(copy):
            os.unlink(copy)
        _, seconds = run_command(programs.program("qemu-img") + [
            "convert", "-f", "raw", "-O", "raw",
            "nbd://127.0.0.1:%d/" % servers[mode].port, copy],
            demo.env("plain"), timeout=120)
        if not filecmp.cmp(image, copy, shallow=False):
            raise RunError("the %s copy differs from the image" % mode)
        return seconds * 1000
    say("TCP: qemu-img convert copies a sparse image of %d MiB (4 KiB of "
        "data every 128 KiB)" % (SPARSE_EXTENTS // 8),
        "from %s over 127.0.0.1; the server plain, then under the library"
        % programs.version("qemu-nbd", "--version"))
    return one


def naive_read(demo):
    """sbnbd-server in its naive mode, plain and boosted; return a
    function timing NAIVE_READS reads of 4 KiB from a mode's server, in
    ms."""
    servers = {mode: demo.start("naive-" + mode, mode, lambda w: programs.program(
        "sbnbd-server") + ["--split-replies", "--no-nodelay", "-p",
                           str(w.port), "--pidfile", w.pidfile, "pattern:1M"])
        for mode in CONFIG}

    def one(mode):
        out, _ = run_command(programs.program("sbnbd-client") + [
            "read", "--request-size", "4K", "--queue-depth", "1",
            "--length", "%dK" % (NAIVE_READS * 4), "--json",
            "nbd://127.0.0.1:%d/" % servers[mode].port, "/dev/null"],
            demo.env("plain"))
        return last_json(out)["seconds"] * 1000
    say("TCP: sbnbd-client reads %d blocks of 4 KiB one at a time from "
        "sbnbd-server" % NAIVE_READS,
        "--split-replies --no-nodelay (reply header and data written apart, "
        "Nagle on:",
        "the pattern of qemu-nbd before 8.0); the server plain, then under "
        "the library")
    return one


# ---- unix ---------------------------------------------------------------

UNIX_MODES = ["plain", "boosted", "ceiling-plain", "ceiling-boosted"]


def unix_part(demo):
    a = demo.args
    servers = {mode: demo.start(mode, mode, lambda w: programs.program(
        "sbnbd-server") + ["pattern:" + a.size, "-U", w.sock,
                           "--pidfile", w.pidfile]) for mode in CONFIG}
    say("unix: sbnbd-client reads pattern:%s from sbnbd-server over a unix "
        "socket," % a.size,
        "request size %s, queue depth %d; both plain, then both under the "
        "library;" % (a.request_size, a.queue_depth),
        "then this host's ceiling: a raw socketpair moving the same replies, "
        "default buffer, then 2 MiB")
    gibs = rounds.take_turns(
        UNIX_MODES, a.rounds, lambda mode, _: unix_round(demo, servers, mode),
        lambda n, f: say("  round %d: plain %.2f GiB/s, boosted %.2f GiB/s; "
                         "socketpair %.2f -> %.2f GiB/s"
                         % ((n,) + tuple(f[m] for m in UNIX_MODES))))
    tbs = {mode: send_buffer(s) for mode, s in servers.items()}
    unix_report(gibs, tbs)


def unix_round(demo, servers, mode):
    """One read in MODE, in GiB/s."""
    a = demo.args
    if mode.startswith("ceiling"):
        j = ceiling.socketpair_run(a.size, a.queue_depth, "2M" if mode ==
                                   "ceiling-boosted" else None, a.request_size)
        return j["throughput"] / GiB
    out, _ = run_command(programs.program("sbnbd-client") + [
        "read", "--request-size", a.request_size, "--queue-depth",
        str(a.queue_depth), "--json",
        "nbd+unix:///?socket=" + servers[mode].sock], demo.env(mode))
    j = last_json(out)
    return j["bytes"] / j["seconds"] / GiB


def send_buffer(server):
    """The send buffer (tb) of a connection SERVER accepted, read from
    outside with ss (sockboostlib, the parser sockboost status uses)
    while the connection is held open; None without ss."""
    if shutil.which("ss") is None:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(server.sock)
        # The greeting: the server has accepted the connection (and the
        # library, if loaded, has tuned it).
        s.recv(8)
        try:
            found = process_sockets(server.pid)
        except SsError as e:
            raise RunError(str(e))
    tbs = [x.tb for x in found if x.type == "unix" and x.state == "ESTAB"]
    return tbs[0] if tbs else None


def unix_report(gibs, tbs):
    def tb(mode):
        return "unknown: no ss" if tbs[mode] is None else str(tbs[mode])
    base = rounds.median(gibs["plain"])
    say("", "%-10s %-18s %8s %17s %7s" % ("mode", "send buffer (tb)",
                                          "GiB/s", "min-max", "ratio"),
        result_line("plain", tb("plain"), gibs["plain"], base, True, 2),
        result_line("boosted", tb("boosted"), gibs["boosted"], base, True, 2),
        verdict_line("boosted", "plain", gibs["boosted"], gibs["plain"], True))
    plain, big = gibs["ceiling-plain"], gibs["ceiling-boosted"]
    base = rounds.median(plain)
    say(result_line("ceiling", "socketpair default", plain, base, True, 2),
        result_line("ceiling", "socketpair 2 MiB", big, base, True, 2),
        verdict_line("2 MiB", "the default", big, plain, True),
        "  (the ceiling is what a bigger send buffer can gain on this host, "
        "with no NBD program involved)")
    if None in tbs.values():
        say("  (send buffers not shown: %s)" % IPROUTE2)
