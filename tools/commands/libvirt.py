#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sockboost libvirt: libsockboost.so in the QEMU that libvirt starts for
a domain, through <qemu:env> entries of the domain's definition.

The definition is read with virsh dumpxml --inactive, the entries are
added to (or taken out of) its text by sockboostlib.libvirtxml, which
changes nothing else, and virsh define stores it.  Which variables an
option sets, and where the library is, is decided by 'sockboost run',
which is asked for them.  status finds the domain's QEMU through
libvirt's own records (sockboostlib.libvirtqemu)."""

import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

from sockboostlib import (decisions, libvirtqemu,              # noqa: E402
                          libvirtxml, paths)
from sockboostlib.command import Command, Failure, UsageError  # noqa: E402
from sockboostlib.options import Option, Parser               # noqa: E402
from sockboostlib.process import Process                      # noqa: E402
from sockboostlib.text import shown                           # noqa: E402

VIRSH_TIMEOUT = 120
# The variables whose values are paths: QEMU runs in /, so each is made
# absolute (a relative log file would be written in / as QEMU's user).
PATH_VARIABLES = ("LD_PRELOAD", "SOCKBOOST_LOG_FILE")

COMMAND = Command("libvirt")
PARSER = Parser("""\
Usage: sockboost libvirt enable [--connect URI] [RUN-OPTION...] DOMAIN
       sockboost libvirt disable [--connect URI] DOMAIN
       sockboost libvirt status [--connect URI] DOMAIN""", """\
Put libsockboost.so into the QEMU that libvirt starts for DOMAIN: enable
adds <qemu:env> entries (LD_PRELOAD and the settings of the RUN-OPTIONs)
to its persistent definition, disable takes them out again, status says
whether the definition has them and whether the running QEMU has the
library mapped.  A change takes effect when the domain is next started;
a migration carries the entries to the destination's QEMU.""",
                [Option(("-c", "--connect"), "the libvirt connection "
                        "(default: virsh's own)", value="URI")],
                rest=True, epilog="""
RUN-OPTIONs are those of 'sockboost run' (--sndbuf SIZE, --no-nodelay,
--no-cork, --scope, --force, --no-force, --stats, -v, --log-file), given
before DOMAIN.  QEMU must be able to read the library: with 'make
install' it can; a build tree in a private home directory it may not.
To boost a running QEMU without a restart, use 'sockboost attach --watch'
on the pid that status prints.
Exit status: 0 when done, 1 on errors, 2 for a usage error.""")


# ---- what sockboost run would do -----------------------------------------

def run_environment(run_options):
    """The LD_PRELOAD and SOCKBOOST_* variables 'sockboost run' sets for
    RUN_OPTIONS, asked of it (run --environment, which also refuses a word
    among the options), as a list of (name, value) with LD_PRELOAD first."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and (not k.startswith("SOCKBOOST_")
                                     or k == "SOCKBOOST_LIBRARY")}
    cmd = [paths.sockboost(), "run", "--environment"] + run_options
    r = subprocess.run(cmd, env=env, capture_output=True)
    err = r.stderr.decode(errors="surrogateescape").strip()
    if r.returncode == 2:
        raise UsageError(err.partition("\n")[0].replace("sockboost: run: ", "", 1))
    if r.returncode != 0:
        raise Failure(err.replace("sockboost: ", "", 1) or
                      "sockboost run failed with status %d" % r.returncode)
    pairs = [entry.decode(errors="surrogateescape").partition("=")
             for entry in r.stdout.split(b"\0") if entry]
    found = {name: value for name, _, value in pairs}
    found.pop("SOCKBOOST_LIBRARY", None)
    for name in PATH_VARIABLES:
        if name in found:
            found[name] = os.path.abspath(found[name])
    return [("LD_PRELOAD", found.pop("LD_PRELOAD"))] + sorted(found.items())


def check_entry_values(entries):
    """libvirt drops control characters from attribute values: refuse
    them rather than define something else than asked."""
    for name, value in entries:
        if any(not ch.isprintable() for ch in value):
            raise Failure("%s value '%s' holds a control character"
                          % (name, shown(value)))


def warn_unreadable_library(library):
    """QEMU runs as qemu.conf's user (libvirt-qemu on Debian), not as us:
    say so when others cannot reach the library, which the loader would
    then skip with only a line in the domain's log."""
    path = ""
    for part in library.split("/")[1:-1]:
        path += "/" + part
        if not os.stat(path).st_mode & 0o001:
            return COMMAND.warn(
                "QEMU's user may not reach %s: %s is not searchable by "
                "others (install the library with 'make install')"
                % (shown(library), shown(path)))
    if not os.stat(library).st_mode & 0o004:
        COMMAND.warn("QEMU's user may not read %s (mode %o)"
                     % (shown(library), os.stat(library).st_mode & 0o777))


def warn_remote(uri):
    host = urllib.parse.urlsplit(uri or "").hostname
    if host:
        COMMAND.warn("the library must be at the same path on %s"
                     % shown(host))


# ---- virsh ----------------------------------------------------------------

def virsh(uri, *args):
    cmd = ["virsh", "-q"] + (["-c", uri] if uri else []) + list(args)
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=VIRSH_TIMEOUT)
    except FileNotFoundError:
        raise Failure("virsh not found: libvirt's client is not installed "
                      "(Debian: apt-get install libvirt-clients)") from None
    except subprocess.TimeoutExpired:
        raise Failure("virsh %s: no answer within %d s"
                      % (args[0], VIRSH_TIMEOUT)) from None
    if r.returncode != 0:
        why = r.stderr.decode(errors="surrogateescape").strip().splitlines()
        why = [line.removeprefix("error: ") for line in why if line.strip()]
        raise Failure("virsh %s: %s" % (args[0], shown("; ".join(why))))
    return r.stdout.decode(errors="surrogateescape")


def persistent_xml(uri, domain):
    """The persistent definition of DOMAIN: a transient domain has none
    that a define could change without making it persistent."""
    info = virsh(uri, "dominfo", "--domain", domain)
    if re.search(r"^Persistent:\s+no$", info, re.M):
        raise Failure("%s is transient: it has no definition to change "
                      "(use 'sockboost attach --watch' on its QEMU)"
                      % shown(domain))
    return virsh(uri, "dumpxml", "--inactive", "--domain", domain)


def define(uri, text):
    with tempfile.NamedTemporaryFile("w", prefix="sockboost-libvirt-",
                                     suffix=".xml") as f:
        f.write(text)
        f.flush()
        virsh(uri, "define", "--file", f.name)


# ---- the entries in the XML text -----------------------------------------

def editing(domain, edit, *args):
    """EDIT(*ARGS) of libvirtxml, its refusal said of DOMAIN."""
    try:
        return edit(*args)
    except libvirtxml.Refused as e:
        raise Failure("%s %s" % (shown(domain), e)) from None


def described(entries):
    return ", ".join("%s=%s" % (name, shown(value)) for name, value in entries)


def enabled(domain, text):
    """What enable set in DOMAIN's definition TEXT (libvirtxml.Enabled),
    or None; the variables of the older form are the library's own."""
    return editing(domain, libvirtxml.enabled, text, decisions.variables())


def live_definition(uri, domain):
    """The running domain's definition: (its text, parsed)."""
    text = virsh(uri, "dumpxml", "--domain", domain)
    try:
        return text, ET.fromstring(text)
    except ET.ParseError as e:
        raise Failure("virsh dumpxml: %s" % e) from None


# ---- the running QEMU -----------------------------------------------------

def qemu_pid(uri, domain, live):
    """The pid of the domain's QEMU on this host, as libvirt's records
    say, cross-checked (libvirtqemu); None (and why) when libvirt has no
    pid file where we look."""
    uri = uri or virsh(uri, "uri").strip()
    emulator = live.findtext("devices/emulator")
    if not emulator:
        raise Failure("%s has no <emulator> in its definition"
                      % shown(domain))
    try:
        return libvirtqemu.find_qemu(
            libvirtqemu.state_dir(uri, os.environ), live.findtext("name"),
            live.findtext("uuid"), emulator), None
    except libvirtqemu.NotHere as e:
        return None, str(e)
    except Failure as e:
        raise Failure("%s: %s: not naming a process" % (shown(domain), e)) \
            from None


def running_report(uri, domain):
    """What status says of a running domain's QEMU."""
    if urllib.parse.urlsplit(uri or "").hostname:
        return "its QEMU is not on this host: run status there"
    text, live = live_definition(uri, domain)
    started_with = enabled(domain, text)
    pid, why = qemu_pid(uri, domain, live)
    if pid is None:
        return "its QEMU was not found on this host (%s)" % shown(why)
    try:
        with Process(pid) as p:
            library = p.library()
    except OSError as e:
        raise Failure("/proc/%d/maps: %s" % (pid, e.strerror)) from None
    if library:
        return "mapped in QEMU pid %d (%s)" % (pid, shown(library))
    if started_with:
        return ("not mapped in QEMU pid %d, which was started with it: the "
                "loader skipped it (the domain's log says why)" % pid)
    return ("not mapped in QEMU pid %d, started without it: "
            "'sockboost attach --watch %d' tunes its sockets now" % (pid, pid))


# ---- commands -------------------------------------------------------------

def cmd_enable(uri, domain, run_options):
    entries = run_environment(run_options)
    check_entry_values(entries)
    warn_unreadable_library(entries[0][1])
    warn_remote(uri)
    old = persistent_xml(uri, domain)
    ours = enabled(domain, old)
    if ours is not None:
        raise Failure("%s is enabled already (%s): 'sockboost libvirt "
                      "disable' it first to change its settings"
                      % (shown(domain), described(ours.entries)))
    define(uri, editing(domain, libvirtxml.enable, old, entries))
    kept = enabled(domain, persistent_xml(uri, domain))
    if kept is None or kept.record is None or kept.entries != entries:
        raise Failure("libvirt did not keep the <qemu:env> entries of %s "
                      "(not a QEMU domain?)" % shown(domain))
    print("%s: enabled (%s); it takes effect when the domain is next "
          "started" % (shown(domain), described(entries)))


def cmd_disable(uri, domain, run_options):
    no_options(run_options)
    old = persistent_xml(uri, domain)
    new, taken, warnings = editing(domain, libvirtxml.disable, old,
                                   decisions.variables())
    for warning in warnings:
        COMMAND.warn("%s: %s" % (shown(domain), warning))
    define(uri, new)
    print("%s: disabled (%s); it takes effect when the domain is next "
          "started" % (shown(domain), "%s removed" % described(taken)
                       if taken else "only the record of enable removed"))


def cmd_status(uri, domain, run_options):
    no_options(run_options)
    ours = enabled(domain, persistent_xml(uri, domain))
    state = virsh(uri, "domstate", "--domain", domain).strip()
    print("domain:     %s" % shown(domain))
    print("definition: %s" % definition_report(ours))
    print("state:      %s" % shown(state))
    if state in ("running", "paused"):
        print("library:    %s" % running_report(uri, domain))


def definition_report(ours):
    """What status says of the definition's entries."""
    if ours is None:
        return "not enabled"
    if ours.record is None:
        return ("enabled, in the form of an older sockboost, without a "
                "record (%s)" % described(ours.entries))
    return "enabled (%s)" % described(ours.entries)


def no_options(run_options):
    if run_options and run_options[0].startswith("-"):
        raise UsageError("unknown option '%s'" % shown(run_options[0]))
    if run_options:
        raise UsageError("unexpected argument '%s' (DOMAIN comes last)"
                         % shown(run_options[0]))


COMMANDS = {"enable": cmd_enable, "disable": cmd_disable, "status": cmd_status}


def parse_args(argv):
    """(command, uri, domain, run options) from the command line."""
    if argv and argv[0] in COMMANDS:
        args = PARSER.parse(argv[1:])
    else:
        PARSER.parse(argv[:1])      # --help, or an option out of place
        raise UsageError("unknown command '%s'" % shown(argv[0]) if argv
                         else "no command given (enable, disable or status)")
    if not args.rest or args.rest[-1] == "" or args.rest[-1].startswith("-"):
        raise UsageError("no domain given (it comes last)")
    return argv[0], args.connect, args.rest[-1], args.rest[:-1]


def main(argv):
    command, uri, domain, run_options = parse_args(argv)
    COMMANDS[command](uri, domain, run_options)


if __name__ == "__main__":
    COMMAND.exit_with(main)
