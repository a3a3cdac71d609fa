#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sockboost doctor: the kernel limits, the send buffer the library gets
here, a live self-test of the library read from outside with ss, this
host's unix ceiling, and what the library changes for the NBD programs
on PATH.  Run by tools/sockboost; every decision of the library comes
from the library (sb-config, through sockboostlib.decisions)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

from sockboostlib import (decisions, hostmode, libvirtqemu,   # noqa: E402
                          paths, programs)
from sockboostlib.command import Command, Failure             # noqa: E402
from sockboostlib.measure import ceiling                      # noqa: E402
from sockboostlib.measure.procs import RunError, Skip         # noqa: E402
from sockboostlib.options import Option, Parser               # noqa: E402
from sockboostlib.process import Process                      # noqa: E402
from sockboostlib.sockets import SsError                      # noqa: E402
from sockboostlib.text import folded, for_json, shown         # noqa: E402

COMMAND = Command("doctor")


def parser():
    """doctor's options, and its help naming the NBD programs of the
    table (asked of sb-config, so not before main runs)."""
    return Parser("Usage: sockboost doctor [--json]", textwrap.fill(
        "Show the kernel limits that decide the send buffer, whether this "
        "user can exceed them, and run a live self-test of the library; "
        "measure what a bigger unix send buffer gains on this host (a raw "
        "socketpair, default buffer against the requested one, about a "
        "second); then list the NBD programs on PATH (%s) with their "
        "versions and what the library changes for each.  Reads the same "
        "SOCKBOOST_* variables as the library.  Exit status 0 when the "
        "self-test passes, 1 when it fails."
        % ", ".join(e.name for e in programs.table()), width=74,
        break_on_hyphens=False),
                  [Option("--json", "print one JSON object instead of the "
                          "report")])


PROBE_WAIT_SECONDS = 10


class Report:
    """The rows of the report, printed as they come unless JSON is
    wanted (the facts are then printed at the end)."""

    def __init__(self, json_wanted):
        self.json = json_wanted

    def row(self, label, text):
        self.say("  %-22s %s" % (label, text))

    def say(self, text):
        if not self.json:
            print(text, flush=True)


def report_limits(r, d):
    if d.wmem_max < 0:
        raise Failure("cannot read /proc/sys/net/core/wmem_max")
    r.row("net.core.wmem_default", "%d (a unix socket's send buffer without "
          "the library)" % d.wmem_default)
    r.row("net.core.wmem_max", "%d (the most SO_SNDBUF may request)"
          % d.wmem_max)
    if d.can_force:
        r.row("can force", "yes: CAP_NET_ADMIN, so SO_SNDBUFFORCE may exceed "
              "wmem_max")
    else:
        r.row("can force", "no: no CAP_NET_ADMIN, so wmem_max clips every "
              "request")
    for warning in d.warnings:
        r.row("library warns", warning)
    if d.warnings and not d.warnings_printed:
        r.row("", "(only here: SOCKBOOST_DEBUG=0 keeps the library silent)")


def honoured(d):
    """off, clipped, forced or yes: what the kernel makes of the request
    (forced: more than a program without CAP_NET_ADMIN would get)."""
    if d.request == 0:
        return "off", None
    if d.clipped:
        return "clipped", None
    if d.can_force:
        unprivileged = decisions.ask(can_force=False)
        if unprivileged.tb < d.tb:
            return "forced", unprivileged
    return "yes", None


def report_request(r, d):
    """The request's rows; returns (honoured, fix commands)."""
    verdict, unprivileged = honoured(d)
    if verdict == "off":
        r.row("requested", "off (SOCKBOOST_SNDBUF=%s): unix send buffers are "
              "left alone" % shown(os.environ.get("SOCKBOOST_SNDBUF", "")))
        return verdict, []
    if d.request != d.sndbuf:
        r.row("requested", "%d bytes, asked as %d (the kernel doubles it into "
              "an int)" % (d.sndbuf, d.request))
    else:
        r.row("requested", "%d bytes (the kernel doubles it)" % d.sndbuf)
    if verdict == "clipped":
        r.row("honoured", "NO: clipped to wmem_max %d: tb %d"
              % (d.wmem_max, d.tb))
    elif verdict == "forced":
        r.row("honoured", "yes, by forcing: tb %d; programs without "
              "CAP_NET_ADMIN get tb %d" % (d.tb, unprivileged.tb))
    elif d.tb == d.before:
        r.row("honoured", "yes: the request is within wmem_max; tb stays %d, "
              "the default, which is larger" % d.tb)
    else:
        r.row("honoured", "yes: tb %d, the request is within wmem_max" % d.tb)
    if verdict == "yes":
        return verdict, []
    fix = ["sysctl -w net.core.wmem_max=%d" % d.sndbuf,
           "echo 'net.core.wmem_max = %d' > /etc/sysctl.d/90-sockboost.conf"
           % d.sndbuf]
    r.say("  to lift the limit now, and at every boot:")
    for line in fix:
        r.say("    " + line)
    return verdict, fix


def start_probe(library, tmp):
    """sb-probe under the library (every socket in scope, each logged),
    once it says its sockets exist; None (and why) if it does not."""
    probe = paths.helper("sb-probe")
    if not os.access(probe, os.X_OK):
        return None, "FAIL: the probe program " + paths.missing(probe)
    preload = os.environ.get("LD_PRELOAD", "").rstrip(": ")
    env = dict(os.environ, SOCKBOOST_SCOPE="all", SOCKBOOST_DEBUG="2",
               SOCKBOOST_LOG_FILE=os.path.join(tmp, "probe.log"),
               LD_PRELOAD=(preload + ":" if preload else "") + library)
    with open(os.path.join(tmp, "out"), "w") as out, \
            open(os.path.join(tmp, "err"), "w") as err:
        proc = subprocess.Popen([probe, os.path.join(tmp, "probe.sock")],
                                env=env, stdout=out, stderr=err)
    deadline = time.monotonic() + PROBE_WAIT_SECONDS
    while "ready" not in read(tmp, "out").split():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            return None, "FAIL: probe did not start: " + read(tmp, "err")
        time.sleep(0.05)
    return proc, None


def read(tmp, name):
    try:
        with open(os.path.join(tmp, name), errors="replace") as f:
            return f.read().strip()
    except OSError:
        return ""


def stop(proc):
    proc.kill()
    proc.wait()


def judge_probe(r, proc, library, want, tmp):
    """Whether the probe's unix sockets have tb WANT, seen from outside;
    (passed, verdict)."""
    with Process(proc.pid) as p:
        if not p.maps(library):
            r.row("library loads", "NO: not mapped into the probe " +
                  read(tmp, "err"))
            return False, "FAIL: the library did not load"
        r.row("library loads", "yes: mapped into the probe (pid %d)"
              % proc.pid)
        tbs = [str(s.tb) for s in p.sockets()
               if s.type == "unix" and s.state == "ESTAB"]
    if len(tbs) < 4 or any(tb != str(want) for tb in tbs):
        return False, ("FAIL: expected tb %d on the probe's 4 unix sockets; "
                       "ss shows: %s" % (want, " ".join(tbs)))
    return True, ("PASS: tb %d on all %d unix sockets of a probe (socketpair,"
                  " connect, accept)" % (want, len(tbs)))


def self_test(r, library, want, tmp):
    """Run the probe in TMP and judge it; (passed, verdict)."""
    if not shutil.which("ss"):
        return False, "FAIL: ss is missing (install iproute2)"
    proc, verdict = start_probe(library, tmp)
    if proc is None:
        return False, verdict
    try:
        return judge_probe(r, proc, library, want, tmp)
    except (OSError, SsError) as e:
        return False, "FAIL: %s" % e
    finally:
        stop(proc)


def report_library(r, library, want):
    """The library's rows and its self-test: (passed, verdict)."""
    if not os.path.isfile(library):
        r.row("library", "MISSING: %s (build it with 'make', or set "
              "SOCKBOOST_LIBRARY)" % shown(library))
        return False, "FAIL: the library is missing: %s" % shown(library)
    r.row("library", shown(library))
    with tempfile.TemporaryDirectory(prefix="sockboost-doctor.") as tmp:
        passed, verdict = self_test(r, library, want, tmp)
        r.row("self-test", verdict)
        log = read(tmp, "probe.log")
        if not passed and log:
            r.say("  the probe's library log:")
            for line in log.splitlines():
                r.say("    " + line)
    return passed, verdict


def report_ceiling(r, d):
    """This host's unix ceiling (benchlib.ceiling), or None."""
    if d.request == 0:
        r.row("unix ceiling", "not measured: the send buffer part is off")
        return None
    try:
        c = ceiling.measure(str(d.sndbuf))
    except (Skip, RunError) as e:
        r.row("unix ceiling", "not measured: %s" % e)
        return None
    lines = ceiling.report_lines(c)
    r.row("unix ceiling", lines[0])
    for line in lines[1:]:
        r.row("", line)
    return c


def report_programs(r, found, missing):
    r.say("  NBD programs on PATH, and what the library changes for each:")
    for p in found:
        version = p.version or "(version unknown)"
        if p.kind == "libnbd":
            version = "libnbd " + version
        r.say("    %s %s (%s)" % (p.name, version, shown(p.path)))
        if p.version_source != programs.PRINTED:
            r.say(folded("      version: ", shown(p.version_source)))
        r.say(folded("      unix: ", p.unix))
        r.say(folded("      tcp:  ", p.tcp))
    if missing:
        r.say("    not on PATH: " + " ".join(missing))


def report_host_mode(r, versions):
    """Whether host mode is on, and whether it can run here (its own
    self-test, sockboost host check): both as sb-host says them; what
    its counting saw stall, the programs named with their VERSIONS
    ({name: version} of those on PATH)."""
    state, state_why = hostmode.host_state()
    check, check_why = hostmode.can_run()
    r.row("host mode", hostmode.state_line(state) if state else
          "unknown: " + state_why)
    r.row("host mode can run", hostmode.check_line(check) if check else
          "unknown: " + check_why)
    stalls = hostmode.stall_lines(state, running_domains(), versions) \
        if state else []
    for line in stalls:
        r.row("NBD stalls", line)
    return {"state": state, "state_why": state_why, "check": check,
            "check_why": check_why, "stalls": stalls}


def running_domains():
    """{pid: name} of the domains of libvirt's system driver whose QEMU
    runs here, as libvirt's own records say (libvirtqemu); none when
    they cannot be read."""
    try:
        return libvirtqemu.running_domains(libvirtqemu.state_dir(
            "qemu:///system", os.environ))[0]
    except Failure:
        return {}


def main(argv):
    json_wanted = parser().parse(argv).json
    r, library = Report(json_wanted), paths.library()
    d = decisions.ask()
    r.say("sockboost %s doctor" % d.version)
    report_limits(r, d)
    verdict, fix = report_request(r, d)
    passed, test_verdict = report_library(r, library, d.tb)
    unix_ceiling = report_ceiling(r, d)
    found, missing = programs.survey()
    host_mode = report_host_mode(r, {p.name: p.version for p in found
                                     if p.version})
    report_programs(r, found, missing)
    if json_wanted:
        print(json.dumps({
            "version": d.version, "wmem_default": d.wmem_default,
            "wmem_max": d.wmem_max, "can_force": d.can_force,
            "requested": d.sndbuf, "honoured": verdict, "expected_tb": d.tb,
            "fix": fix, "warnings": d.warnings,
            "warnings_printed": d.warnings_printed,
            "library": for_json(library),
            "self_test": {"passed": passed, "verdict": test_verdict},
            "unix_ceiling": unix_ceiling,
            "programs": [dict(vars(p), path=for_json(p.path),
                              version_source=for_json(p.version_source))
                         for p in found],
            "missing_programs": missing, "host_mode": host_mode}, indent=1))
    return 0 if passed else 1


if __name__ == "__main__":
    COMMAND.exit_with(main)
