# SPDX-License-Identifier: MIT
"""What host mode says, for doctor and status: whether it can run here
and whether it is on, and which sockets of a process it tuned.  Asked of
sb-host (sockboost host check, status, status PID), which reads the
kernel's maps; nothing here knows how host mode decides.  Host mode's
pins are root's: as another user, or without sb-host, the answer is
None with the reason.

    state, why = host_state()            # {"on": ..., ...} or None
    check, why = can_run()               # {"can_run": ..., ...} or None
    marks, why = tuned_sockets(pid)      # {inode: {"tcp_nodelay": ...}}
"""

import json
import os
import subprocess
import time

from . import paths
from .text import shown

HELPER = "sb-host"
# enable's self-test makes two connections on a private loopback; the
# bound is on a hang, not the speed.
TIMEOUT = 30


def ask(*args):
    """sb-host ARGS --json as a dict, or (None, why)."""
    helper = paths.helper(HELPER)
    if not os.access(helper, os.X_OK):
        return None, "sockboost host is not built here (" + \
            paths.missing(helper) + ")"
    if os.geteuid() != 0:
        return None, "only root can read host mode's state"
    try:
        out = subprocess.run([helper] + list(args) + ["--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "sockboost host failed: %s" % e
    try:
        return json.loads(out.stdout), None
    except ValueError:
        err = out.stderr.decode(errors="replace").strip().splitlines()
        return None, err[0] if err else "sockboost host printed no answer"


def host_state():
    """sockboost host status: whether host mode is on, and how."""
    return ask("status")


def can_run():
    """sockboost host check: whether host mode can run here."""
    return ask("check")


def tuned_sockets(pid):
    """The sockets of PID that host mode tuned, by inode: what it did to
    each (tcp_nodelay, unix_sndbuf, program); or None and why not (host
    mode is off, or its state cannot be read)."""
    answer, why = ask("status", str(pid))
    if answer is None:
        return None, "unknown: " + why
    if not answer.get("on"):
        return None, "off"
    return marks_by_inode(answer), None


def marks_by_inode(answer):
    """sockboost host status PID --json's sockets, keyed by inode."""
    return {s["inode"]: {k: s[k] for k in ("tcp_nodelay", "unix_sndbuf",
                                          "program")}
            for s in answer.get("sockets", [])}


def tuned_by(mark, library_boosted):
    """Who tuned a socket: "host mode" when it has host mode's MARK for
    what the row shows, "library" when LIBRARY_BOOSTED says the library
    did (it is loaded and the socket shows a boost), both or neither."""
    who = []
    if mark and (mark["tcp_nodelay"] or mark["unix_sndbuf"]):
        who.append("host mode")
    if library_boosted:
        who.append("library")
    return who


def state_line(state):
    """One line for sockboost host status --json's STATE."""
    if not state.get("on"):
        return "off ('sockboost host enable' turns it on)"
    where = state.get("cgroup", "?")
    if state.get("whole_host"):
        where += " (the whole host)"
    since = time.strftime("%Y-%m-%d %H:%M:%S %z",
                          time.localtime(state.get("since", 0)))
    line = "%s since %s, cgroup %s, filter %s" % (
        "observing (counting only, no socket changed)" if
        state.get("observe") else "on", since, where,
        filter_text(state.get("filter", {})))
    watcher = state.get("watcher")
    if watcher and watcher.get("running"):
        line += "; TCP_NODELAY by the watcher (pid %s)" % watcher.get("pid")
    elif watcher:
        line += "; TCP_NODELAY by the watcher, which is NOT running"
    if not state.get("whole"):
        line += "; not whole: run 'sockboost host enable' again"
    return line


def filter_text(f):
    kind = f.get("kind")
    if kind == "programs":
        return "programs " + ", ".join(f.get("programs", []))
    if kind == "ports":
        return "ports " + ", ".join(str(p) for p in f.get("ports", []))
    return kind or "?"


def check_line(check):
    """One line for sockboost host check --json's CHECK."""
    if not check.get("can_run"):
        return "no: %s" % check.get("why")
    tcp = "TCP_NODELAY" + (" by the watcher" if check.get("tcp_by") ==
                           "watcher" else "")
    if check.get("unix"):
        return "yes: %s, and unix buffers of %d" % (
            tcp, check.get("unix_sndbuf", 0))
    return "yes: %s; unix buffers %s" % (
        tcp, "not: " + check["unix_why"] if check.get("unix_why") else "off")


def stall_lines(state, domains, versions=None):
    """What host mode's counting says, one line a libvirt domain and one
    a program row that stalled, for doctor: STATE is sockboost host
    status --json's, DOMAINS {pid: name} (libvirtqemu.running_domains),
    VERSIONS {program: version} of the programs on PATH ("qemu-nbd 7.2").
    Names escaped (text.shown).  [] when host mode does not count, or
    nothing stalled."""
    versions = versions or {}
    if not state.get("on") or not state.get("counting"):
        return []
    fix = ("'sockboost host enable' removes them" if state.get("observe")
           else "left with the tuning on")
    lines = []
    for (domain, program), row in sorted(stalls_by_domain(state,
                                                          domains).items()):
        if row["stalls"]:
            lines.append("%s (domain %s): %s; %s" % (
                shown(program), shown(domain), stall_text(row), fix))
    for row in state.get("tuned", []):
        if row.get("stalls"):
            who = "" if row.get("uid") in (0, None) else \
                " (uid %d)" % row["uid"]
            program = shown(row["program"])
            if versions.get(row["program"]):
                program += " " + shown(versions[row["program"]])
            lines.append("%s%s: %s; %s" % (program, who, stall_text(row), fix))
    return lines


def stalls_by_domain(state, domains):
    """{(domain, program entry): summed counts of the live processes
    that DOMAINS ({pid: name}) names} of STATE's processes."""
    fields = ("stalls", "stall_seconds", "bytes_sent", "bytes_received",
              "connections")
    sums = {}
    for p in state.get("processes", []):
        name = domains.get(p.get("pid"))
        if name is None:
            continue
        row = sums.setdefault((name, p["program"]), dict.fromkeys(fields, 0))
        for field in fields:
            row[field] += p.get(field, 0)
        first = p.get("first_count")
        if first is not None and (row.get("first_count") is None or
                                  first < row["first_count"]):
            row["first_count"] = first
    return sums


def stall_text(row):
    """"540 stalls, 23 s lost since 10:02" of a row of counts."""
    since = row.get("first_count")
    when = "" if since is None else " since " + time.strftime(
        "%H:%M" if time.time() - since < 86400 else "%Y-%m-%d %H:%M",
        time.localtime(since))
    return "%d stall%s, %.1f s lost%s" % (
        row["stalls"], "" if row["stalls"] == 1 else "s",
        row.get("stall_seconds", 0), when)
