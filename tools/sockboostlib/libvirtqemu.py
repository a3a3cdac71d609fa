# SPDX-License-Identifier: MIT
"""The QEMU of a running domain, found through libvirt's own records:
never by what a process says of itself, which any user may copy (a
domain's uuid is in its QEMU's command line, for all to read).

libvirt's QEMU driver writes the pid of each running domain's QEMU to
NAME.pid in its state directory, and QEMU holds a write lock on that
file for as long as it runs.  The file is opened without following a
link, and only if trust.py trusts it (root's, or the session user's, in
directories nobody else may write).  The process is the one the kernel
says holds the lock (/proc/locks, in our own pid numbers, where nobody
can plant one), whose pid in its own namespace is the one in the file
(libvirtd in a container counts in its own numbers).  It must also run
the domain's <emulator> (the same file) and carry the domain's uuid
(-uuid); whatever disagrees is refused, never named."""

import os
import urllib.parse
import xml.etree.ElementTree as ET

from . import trust
from .command import Failure
from .process import Process


class NotHere(Exception):
    """libvirt has no pid file where we look: why, in words."""


def state_dir(uri, environ):
    """The directory where the QEMU driver of local connection URI keeps
    its pid files: the system driver's beside its socket (/run/libvirt),
    a session's under XDG_RUNTIME_DIR.  Failure for other connections."""
    parts = urllib.parse.urlsplit(uri)
    driver, _, transport = parts.scheme.partition("+")
    socket = dict(urllib.parse.parse_qsl(parts.query)).get("socket")
    if driver == "qemu" and transport in ("", "unix") and not parts.netloc:
        if parts.path == "/system":
            return os.path.join(os.path.dirname(socket) if socket
                                else "/run/libvirt", "qemu")
        if parts.path == "/session":
            runtime = environ.get("XDG_RUNTIME_DIR")
            base = os.path.dirname(socket) if socket else (
                os.path.join(runtime, "libvirt") if runtime else
                os.path.expanduser("~/.cache/libvirt"))
            return os.path.join(base, "qemu", "run")
    raise Failure("cannot tell where libvirt keeps the pid files of "
                  "connection %s (status knows qemu:///system and "
                  "qemu:///session)" % uri)


def lock_holders(fd, locks):
    """The pids that hold a POSIX write lock on the file open at FD, as
    LOCKS (the text of /proc/locks) says: only who may write the file
    can take one (anyone who may read it can flock() it)."""
    st = os.fstat(fd)
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    found = []
    for line in locks.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1:4] != ["POSIX", "ADVISORY", "WRITE"]:
            continue
        try:
            major, minor, ino = fields[5].split(":")
            holder = int(fields[4])
            if (int(major, 16), int(minor, 16), int(ino)) == want and \
                    holder > 0:
                found.append(holder)
        except ValueError:
            continue
    return found


def read_pid_file(path):
    """(the pid written in PATH, the pid of the process that holds it
    locked).  NotHere when there is no such file; Failure when it is
    not to be trusted, or not held by one process."""
    try:
        fd = trust.open_trusted(path)
    except FileNotFoundError:
        raise NotHere("libvirt has no pid file %s" % path) from None
    except trust.Untrusted as e:
        raise Failure("libvirt's pid file is not to be trusted: %s" % e) \
            from None
    except OSError as e:
        raise Failure("%s: %s" % (path, e.strerror)) from None
    try:
        text = os.read(fd, 32).decode("ascii", "replace").strip()
        with open("/proc/locks") as f:
            holders = lock_holders(fd, f.read())
    finally:
        os.close(fd)
    if not text.isdigit():
        raise Failure("libvirt's pid file %s holds no pid" % path)
    if len(holders) != 1:
        raise Failure("libvirt's pid file %s is held by %s: its QEMU "
                      "should hold it" % (path, "no process" if not holders
                                          else "%d processes"
                                          % len(holders)))
    return int(text), holders[0]


def check_qemu(p, written, uuid, emulator):
    """Failure unless Process P, which holds the pid file that says
    WRITTEN, is the domain's QEMU."""
    claim = "pid %d holds libvirt's pid file but" % p.pid
    if p.own_pid() != written:
        raise Failure("%s is pid %d in its namespace, and the file says %d"
                      % (claim, p.own_pid(), written))
    try:
        same = p.runs(emulator)
    except FileNotFoundError:
        raise Failure("the domain's emulator %s is missing" % emulator) \
            from None
    if not same:
        raise Failure("%s does not run the domain's emulator %s"
                      % (claim, emulator))
    args = p.cmdline()
    if not any(args[i:i + 2] == ["-uuid", uuid] for i in range(len(args))):
        raise Failure("%s has not the domain's uuid %s on its command line"
                      % (claim, uuid))


def find_qemu(directory, name, uuid, emulator):
    """The pid (ours) of the QEMU of domain NAME (UUID, EMULATOR) that
    the driver keeping its pid files in DIRECTORY runs.  NotHere, or
    Failure when libvirt's records and the process disagree."""
    if "/" in name or name.startswith(".") or not name:
        raise Failure("the domain's name %s cannot name a pid file" % name)
    written, holder = read_pid_file(os.path.join(directory, name + ".pid"))
    try:
        with Process(holder) as p:
            check_qemu(p, written, uuid, emulator)
    except (OSError, ValueError) as e:
        raise Failure("pid %d, which holds libvirt's pid file: %s"
                      % (holder, getattr(e, "strerror", None) or e)) \
            from None
    return holder


def status_record(directory, name):
    """(uuid, emulator) of running domain NAME from the status record
    the driver keeps beside its pid file (NAME.xml, <domstatus>): root's
    file, opened as trust.py decides.  Failure when it is missing, not
    to be trusted or not libvirt's form."""
    path = os.path.join(directory, name + ".xml")
    try:
        fd = trust.open_trusted(path)
    except trust.Untrusted as e:
        raise Failure("libvirt's status record is not to be trusted: %s"
                      % e) from None
    except OSError as e:
        raise Failure("%s: %s" % (path, e.strerror)) from None
    try:
        with os.fdopen(fd, "rb") as f:
            root = ET.fromstring(f.read(1 << 22))
    except (ET.ParseError, ValueError) as e:
        raise Failure("%s: %s" % (path, e)) from None
    uuid = root.findtext("domain/uuid")
    emulator = root.findtext("domain/devices/emulator")
    if root.tag != "domstatus" or not uuid or not emulator:
        raise Failure("%s is not a status record of libvirt's" % path)
    return uuid, emulator


def running_domains(directory):
    """{pid: name} of the domains whose QEMU the driver keeping its pid
    files in DIRECTORY runs, each found and cross-checked as find_qemu
    does; and the list of (name, why) for those refused.  No domain when
    DIRECTORY does not exist."""
    found, refused = {}, []
    try:
        names = sorted(n[:-4] for n in os.listdir(directory)
                       if n.endswith(".pid"))
    except FileNotFoundError:
        return found, refused
    except OSError as e:
        raise Failure("%s: %s" % (directory, e.strerror)) from None
    for name in names:
        try:
            uuid, emulator = status_record(directory, name)
            found[find_qemu(directory, name, uuid, emulator)] = name
        except NotHere:
            continue
        except Failure as e:
            refused.append((name, str(e)))
    return found, refused
