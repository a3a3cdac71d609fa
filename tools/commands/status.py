#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sockboost status PID: the unix stream and TCP sockets of a running
process (ss, through sockboostlib.sockets), whether each is boosted, the
process at the other end, whether the library is loaded, and for an NBD
program (QEMU's system emulators included) what the library changes for
it.  Run by tools/sockboost."""

import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

from sockboostlib import hostmode, programs                   # noqa: E402
from sockboostlib.command import Command, Failure             # noqa: E402
from sockboostlib.options import Option, Parser               # noqa: E402
from sockboostlib.process import Process                      # noqa: E402
from sockboostlib.sockets import SsError                      # noqa: E402
from sockboostlib.text import folded, for_json, shown         # noqa: E402


def process_id(text):
    if not re.fullmatch(r"[0-9]{1,10}", text):
        raise ValueError("expected a process id")
    return int(text)


COMMAND = Command("status")
PARSER = Parser("Usage: sockboost status [--json] PID", """\
List the unix stream and TCP sockets of process PID, listening and
connected: file descriptors, type, state, send buffer (tb, as ss reports
it), whether it is boosted, the peer process, the local address; and
whether libsockboost.so is loaded in the process.  For an NBD program
(qemu-nbd, QEMU's system emulators, nbdkit...), its version and what the
library changes for it.""",
                [Option("--json", "print one JSON object instead of the "
                        "table")],
                operands=[("PID", process_id)])

HEADINGS = ("FD", "TYPE", "STATE", "TB", "BOOSTED", "PEER", "LOCAL")


def verdict(s, wmem_default, tcp_max):
    """Whether S's tb shows a boost.  A listener's does not matter (each
    accepted socket gets its own buffer); TCP grows its buffer by itself
    up to tcp_wmem's last value, so only more than that proves one."""
    if s.state == "LISTEN":
        return "n/a (listening)"
    if s.type == "tcp":
        if s.tb is not None and s.tb > tcp_max:
            return "yes (above autotuning)"
        return "n/a (autotuned)"
    if s.tb is None or wmem_default is None:
        return "unknown"
    if s.tb > wmem_default:
        return "yes"
    return "no (default)" if s.tb == wmem_default else "no (below default)"


def by_whom(proc, s, boosted):
    """BOOSTED (verdict's words), and who tuned the socket: host mode, as
    the mark its programs left says, or the library, loaded and showing
    a boost (the table names host mode only: the library's header line
    says whether it is loaded); and that list, for JSON."""
    mark = (proc.host or {}).get(s.inode) if proc else None
    who = hostmode.tuned_by(mark, proc is not None and
                            proc.library is not None and
                            boosted.startswith("yes"))
    if mark and mark["tcp_nodelay"]:
        text = "TCP_NODELAY by host mode"
        if s.state == "LISTEN":
            text += " (inherited by what it accepts)"
        return text, who
    if "host mode" in who:
        return "%s (%s)" % (boosted, ", ".join(who)), who
    return boosted, who


def peer_text(s):
    procs = ", ".join("%s %d" % (shown(p.name), p.pid)
                      for p in s.peer_processes)
    if not s.connected:
        return "-"
    if s.type == "tcp":
        return shown(s.peer) + (" (%s)" % procs if procs else "")
    return procs or "inode %d (process not visible)" % s.peer_inode


def local_text(s):
    return "(unnamed)" if s.local is None else shown(s.local)


def socket_json(s, boosted, proc=None):
    processes = [{"name": for_json(p.name), "pid": p.pid}
                 for p in s.peer_processes]
    peer = None
    if s.connected and s.type == "tcp":
        peer = {"address": for_json(s.peer), "processes": processes}
    elif s.connected:
        peer = {"inode": s.peer_inode, "processes": processes}
    return {"fds": s.fds, "type": s.type, "state": s.state,
            "local": None if s.local is None else for_json(s.local),
            "inode": s.inode, "tb": s.tb,
            "boosted": True if boosted.startswith("yes") else
            False if boosted.startswith("no") else None,
            "verdict": boosted, "peer": peer,
            "host_mode": (proc.host or {}).get(s.inode) if proc else None,
            "tuned_by": by_whom(proc, s, boosted)[1]}


def print_table(rows):
    """ROWS (lists of cells) under HEADINGS, each column as wide as its
    widest cell; the local address, which may be a long path, last."""
    widths = [max(len(r[i]) for r in [HEADINGS] + rows)
              for i in range(len(HEADINGS) - 1)]
    for r in [HEADINGS] + rows:
        print("  " + "".join(c.ljust(w) + "  " for c, w in zip(r, widths)) +
              r[-1])


class Report:
    """What status reports of process P, read once."""

    def __init__(self, p):
        self.pid, self.comm = p.pid, p.comm
        try:
            self.library = p.library()
        except OSError:
            self.library = None
        self.sockets = p.sockets()
        with open("/proc/sys/net/ipv4/tcp_wmem") as f:
            self.tcp_wmem = [int(v) for v in f.read().split()]
        self.program = None
        if p.nbd_program():
            self.program = p.program(programs.Changes(
                library_environment(p), p.may_force()))
        self.host, self.host_why = hostmode.tuned_sockets(p.pid)


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "surrogateescape")
    except OSError:
        return ""


def library_environment(p):
    """Our environment with process P's SOCKBOOST_* variables instead of
    ours: the settings the library has (or would have) in P."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOCKBOOST_")}
    try:
        env.update(p.environment("SOCKBOOST_"))
    except OSError:
        pass
    return env


def wmem_default():
    text = read_text("/proc/sys/net/core/wmem_default").strip()
    return int(text) if text.isdigit() else None


def print_program(p):
    version = p.version or "(version unknown)"
    print("  %s %s: what the library changes for it" % (p.name, version))
    if p.version_source != programs.PRINTED:
        print(folded("    version: ", shown(p.version_source)))
    print(folded("    unix: ", p.unix))
    print(folded("    tcp:  ", p.tcp))


def print_notes(proc, default):
    """What the table cannot say by itself."""
    if all(s.state == "LISTEN" for s in proc.sockets):
        print("  listening only: no client is connected now; ", end="")
        if proc.library:
            print("the library tunes each\n  connection as the program "
                  "accepts it.")
        else:
            print("the library is not\n  loaded, so the connections it "
                  "accepts stay as they are: start it with\n  'sockboost "
                  "run', or tune them from outside with 'sockboost attach "
                  "--watch %d'." % proc.pid)
    if any(s.type == "unix" for s in proc.sockets):
        print("  unix: default tb is net.core.wmem_default (%s); above it "
              "means boosted\n        (by the library or by the program "
              "itself)." % ("unknown" if default is None else default))
    if any(s.type == "tcp" for s in proc.sockets):
        print("  tcp:  tb starts at %d and autotunes up to %d, so ss cannot "
              "show a\n        boost; TCP_NODELAY is not visible to ss at all "
              "(the library sets it when loaded)." % tuple(proc.tcp_wmem[1:]))


def print_text(proc, default):
    print("process %d (%s)" % (proc.pid, shown(proc.comm)))
    if proc.library:
        print("  libsockboost.so: loaded (%s)" % shown(proc.library))
    else:
        print("  libsockboost.so: not loaded")
    if proc.host is None:
        print("  host mode: %s" % proc.host_why)
    else:
        print("  host mode: tuned %d of its sockets" % len(proc.host))
    if proc.program:
        print_program(proc.program)
    if not proc.sockets:
        print("  no unix stream or TCP sockets, listening or connected")
        return
    print_table([[",".join(map(str, s.fds)), s.type, s.state,
                  "?" if s.tb is None else str(s.tb),
                  by_whom(proc, s, verdict(s, default, proc.tcp_wmem[2]))[0],
                  peer_text(s),
                  local_text(s)] for s in proc.sockets])
    print_notes(proc, default)


def print_json(proc, default):
    print(json.dumps({
        "pid": proc.pid, "name": for_json(proc.comm),
        "library": proc.library and for_json(proc.library),
        "program": proc.program and dict(
            vars(proc.program), path=for_json(proc.program.path),
            version_source=for_json(proc.program.version_source)),
        "wmem_default": default, "tcp_wmem": proc.tcp_wmem,
        "host_mode": proc.host_why is None, "host_mode_why": proc.host_why,
        "sockets": [socket_json(s, verdict(s, default, proc.tcp_wmem[2]), proc)
                    for s in proc.sockets]}, indent=1))


def main(argv):
    args = PARSER.parse(argv)
    if not shutil.which("ss"):
        raise Failure("ss is missing (install iproute2)")
    if not os.path.isdir("/proc/%d" % args.pid):
        raise Failure("no process %d" % args.pid)
    try:
        with Process(args.pid) as p:
            proc = Report(p)
    except PermissionError:
        raise Failure("process %d: not permitted to inspect its sockets "
                      "(%s)" % (args.pid, "the kernel refuses it even to "
                                "root here" if os.geteuid() == 0 else
                                "run as its owner or root")) from None
    except (OSError, SsError) as e:
        raise Failure("process %d: %s" % (args.pid, e)) from None
    (print_json if args.json else print_text)(proc, wmem_default())
    return 0


if __name__ == "__main__":
    COMMAND.exit_with(main)
