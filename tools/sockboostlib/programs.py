# SPDX-License-Identifier: MIT
"""What the library changes for each NBD program, by version, for doctor
(the programs on PATH) and status (the program of a process).

Which programs are NBD programs, and which NBD code each runs, is one
table in C (common/nbd-programs.c), of which host mode's default filter
is made too: it is read here from sb-config (table).  Each claim about a
program was checked with strace on the version named (Debian 12's QEMU
7.2 (qemu-nbd, qemu-img, qemu-storage-daemon), nbdkit 1.32, libnbd 1.14,
nbd-server and nbd-client 3.24; Debian 13's QEMU 10.0, nbdkit 1.42,
libnbd 1.22; unstable's QEMU 11.1, nbdkit 1.48, libnbd 1.24); the
thresholds between are QEMU's own (8.0 corks replies, 10.1 sets 2 MiB on
its unix sockets).  What the library does is not decided here: the
decisions come from the library itself (decisions.ask)."""

import dataclasses
import functools
import os
import re
import subprocess

from . import decisions, packages, trust

# What QEMU 10.1 and libnbd 1.24 set on their unix sockets themselves.
PROGRAMS_OWN_SNDBUF = 2 << 20


# The source of a version the program printed itself.
PRINTED = "printed by the program"


@dataclasses.dataclass
class Version:
    number: str                # digits and dots, None when unknown
    source: str                # PRINTED, the package, or why unknown


@dataclasses.dataclass(frozen=True)
class Entry:
    """One row of the table of NBD programs."""
    name: str                  # a file name, or a prefix ending in '*'
    kind: str                  # the NBD code it runs (nbd-programs.h)

    def matches(self, name):
        """Whether the program whose file is named NAME is this one."""
        if self.name.endswith("*"):
            return name.startswith(self.name[:-1])
        return name == self.name


@functools.lru_cache(maxsize=None)
def table():
    """The NBD programs, as Entry rows in the table's order."""
    rows = []
    for line in decisions.sb_config(["--programs"]).splitlines():
        fields = line.split("\t")
        if fields[0] != "program" or len(fields) != 3:
            raise decisions.HelperError("sb-config --programs: unexpected "
                                        "line %r" % line)
        rows.append(Entry(fields[1], fields[2]))
    return tuple(rows)


def entry_of(name):
    """The Entry of the program whose file is named NAME, or None."""
    return next((e for e in table() if e.matches(name)), None)


def is_nbd_program(name):
    return entry_of(name) is not None


@dataclasses.dataclass
class Program:
    name: str
    kind: str                  # Entry.kind
    path: str
    version: str               # Version.number
    version_source: str        # Version.source
    unix: str                  # what the library changes on unix sockets
    tcp: str                   # and on TCP sockets


def version_of(name, fd, path):
    """The Version of NBD program NAME, whose file is open at FD and is
    named PATH on this host, by the rule of trust.py: printed by the
    program when we may run it; else the version of the package that
    installed that very file; else unknown.  It is never run as the
    process's own user instead: that would still run the user's code in
    our session (our terminal, our namespaces, our limits).  FD is None
    when the file cannot be opened."""
    if fd is None:
        return Version(None, "not run: its file cannot be opened")
    try:
        trust.runnable(fd, path)
    except (trust.Untrusted, OSError) as e:
        why = e if isinstance(e, trust.Untrusted) else "%s: %s" % (
            path, e.strerror)
        return packaged_version(fd, path, "not run: %s" % why)
    return printed_version(name, fd)


def printed_version(name, fd):
    """The version NBD program NAME, open at FD, prints, as digits and
    dots: libnbd's for a libnbd program."""
    kind = entry_of(name).kind
    option = "-V" if kind == "nbd-server" else "--version"
    try:
        out = trust.run_opened(fd, name, [option], timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return Version(None, "it could not be run")
    lines = out.decode("utf-8", "replace").splitlines() or [""]
    if kind == "libnbd":
        lines = [l for l in lines if l.startswith("libnbd ")] or [""]
    elif kind != "nbd-server":
        lines = lines[:1]
    found = re.search(r"[0-9]+\.[0-9]+(\.[0-9]+)?", "\n".join(lines))
    if not found:
        return Version(None, "it printed no version")
    return Version(found.group(0), PRINTED)


def packaged_version(fd, path, why):
    """The version of the Debian package that installed the file open at
    FD as PATH (packages.installed); else unknown, saying WHY it was not
    run."""
    found = packages.installed(fd, path)
    if found:
        package, version, number = found
        return Version(number, "from package %s %s (%s)"
                       % (package, version, why))
    return Version(None, why + "; no package installed that file")


def older(version, than):
    """Whether VERSION is lower than THAN, numerically dot by dot."""
    def parts(v):
        return [int(p) for p in v.split(".")] + [0] * (3 - v.count(".") - 1)
    return parts(version) < parts(than)


def unix_raise(d):
    """What the library does, by decisions D, to a unix socket."""
    if d.request == 0:
        return "nothing: SOCKBOOST_SNDBUF is off"
    if d.tb <= d.before:
        return "nothing: the request is not above the default"
    return "raises the send buffer to tb %d" % d.tb


class Changes:
    """What the library changes for a program, from the library's own
    decisions in ENV (default: ours), for a program that may force or not
    as CAN_FORCE says (default: as we may): for a socket of the default
    buffer, and for one whose program set 2 MiB itself first (asked once,
    when needed)."""

    def __init__(self, env=None, can_force=None):
        self.env, self.can_force = env, can_force
        self.default = decisions.ask(env=env, can_force=can_force)
        self.after_own = None

    def on_own_sndbuf(self):
        if self.after_own is None:
            self.after_own = decisions.ask(
                program_asked=PROGRAMS_OWN_SNDBUF,
                can_force=self.can_force, env=self.env)
        return self.after_own

    def qemu_unix(self, version):
        if older(version, "10.1"):
            return unix_raise(self.default) + \
                ": QEMU before 10.1 leaves the default"
        return ("nothing: QEMU 10.1 and later set 2 MiB themselves, just "
                "after the library's hook (a larger SOCKBOOST_SNDBUF does "
                "not hold)")

    def qemu_server_tcp(self, version, sockets):
        """The TCP change for QEMU's NBD server, on SOCKETS (those it
        accepts)."""
        if not older(version, "8.0"):
            return ("nothing: QEMU 8.0 and later cork each reply themselves "
                    "(10.0 and 11.1 also set TCP_NODELAY)")
        if not self.default.nodelay:
            return ("nothing, as SOCKBOOST_NODELAY=0 asks: QEMU before 8.0 "
                    "leaves Nagle on for %s" % sockets)
        return ("sets TCP_NODELAY on %s: QEMU before 8.0 "
                "leaves Nagle on, so each small reply chunk waits for the "
                "client's delayed ACK (about 40 ms)" % sockets)

    def of(self, kind, version):
        """(unix, tcp): what the library changes for a program of KIND
        (Entry.kind) at VERSION."""
        if version is None:
            return ("unknown: its version is unknown",) * 2
        return KINDS[kind](self, version)

    def qemu_server(self, version):
        return (self.qemu_unix(version),
                self.qemu_server_tcp(version, "the sockets it accepts"))

    def qemu_client(self, version):
        return (self.qemu_unix(version), "nothing: it sets TCP_NODELAY "
                "and corks its requests itself")

    def qemu_server_client(self, version):
        return (self.qemu_unix(version),
                self.qemu_server_tcp(version,
                                     "the NBD sockets its server accepts") +
                "; nothing for its NBD client, which sets TCP_NODELAY itself")

    def nbdkit(self, version):
        return (unix_raise(self.default) + ": nbdkit leaves the default",
                "nothing: nbdkit sets TCP_NODELAY and passes MSG_MORE "
                "itself")

    def libnbd(self, version):
        tcp = "nothing: libnbd sets TCP_NODELAY and passes MSG_MORE itself"
        if older(version, "1.23"):
            return (unix_raise(self.default) +
                    ": libnbd before 1.24 leaves the default", tcp)
        if older(version, "1.24"):
            return ("not checked for libnbd %s (1.22 leaves the default, "
                    "1.24 sets 2 MiB itself)" % version, tcp)
        own = self.on_own_sndbuf()
        if own.tb <= own.before:
            return ("nothing: libnbd 1.24 and later set 2 MiB themselves",
                    tcp)
        return (unix_raise(own) + ": libnbd 1.24 and later set 2 MiB "
                "themselves, before connecting", tcp)

    def nbd_server(self, version):
        unix = unix_raise(self.default) + ": nbd-server leaves the default"
        if not self.default.cork:
            tcp = ("nothing, as SOCKBOOST_CORK=off asks: nbd-server writes a "
                   "reply's header and data in separate calls")
        else:
            tcp = ("corks each reply: nbd-server sets TCP_NODELAY itself but "
                   "writes a reply's header and data in separate calls, so "
                   "the header would leave as a segment of its own")
        if version != "3.24":
            tcp += " (as checked on 3.24)"
        return unix, tcp

    def nbd_client(self, version):
        """nbd-client makes the connection and hands it to the kernel's
        NBD client, which sends on it with the options it was given."""
        checked = "" if version == "3.24" else " (as checked on 3.24)"
        return (unix_raise(self.default) + ": nbd-client leaves the "
                "default, and the kernel's NBD client sends on that socket"
                + checked,
                "nothing: nbd-client sets TCP_NODELAY itself" + checked)

    def sbnbd(self, version):
        return (unix_raise(self.default) + ": sbnbd-server and sbnbd-client "
                "leave the default",
                "nothing: sbnbd-server and sbnbd-client set TCP_NODELAY and "
                "send each message in one call themselves, unless a naive "
                "switch (--no-nodelay, --split-replies, --split-writes) "
                "leaves that to the library")


# Each kind of program of the table (Entry.kind), and what says what
# the library changes for it.
KINDS = {"qemu-server": Changes.qemu_server,
         "qemu-client": Changes.qemu_client,
         "qemu-server-client": Changes.qemu_server_client,
         "nbdkit": Changes.nbdkit, "libnbd": Changes.libnbd,
         "nbd-server": Changes.nbd_server, "nbd-client": Changes.nbd_client,
         "sbnbd": Changes.sbnbd}


def describe(changes, name, fd, path):
    """NBD program NAME, open at FD (None: it cannot be) and named PATH on
    this host."""
    kind = entry_of(name).kind
    version = version_of(name, fd, path)
    unix, tcp = changes.of(kind, version.number)
    return Program(name, kind, path, version.number, version.source, unix,
                   tcp)


def describe_on_path(changes, name, path):
    """Program NAME, which PATH (found on PATH) runs."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return describe(changes, name, fd, os.path.realpath(path))
    finally:
        os.close(fd)


def on_path():
    """{name: path} of the NBD programs on PATH, each found by the first
    directory of PATH that has it."""
    found = {}
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        try:
            names = sorted(os.listdir(d or "."))
        except OSError:
            continue
        for name in names:
            path = os.path.join(d or ".", name)
            if (is_nbd_program(name) and name not in found
                    and os.path.isfile(path) and os.access(path, os.X_OK)):
                found[name] = path
    return found


def survey():
    """(programs found, names missing): each NBD program on PATH with
    what the library changes for it, in the table's order (the programs
    of a prefix by name); the table's names (a prefix as "qemu-system-*")
    that no program on PATH has."""
    found, changes = on_path(), Changes()
    present, missing = [], []
    for e in table():
        names = sorted(n for n in found if entry_of(n) == e)
        present += [describe_on_path(changes, n, found[n]) for n in names]
        if not names:
            missing.append(e.name)
    return present, missing
