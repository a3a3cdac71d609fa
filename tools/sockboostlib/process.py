# SPDX-License-Identifier: MIT
"""One running process, asked about itself: the one way the tools
(status, doctor, libvirt) look at a process, whoever started it.

What /proc shows of a process is its owner's to choose: its name, its
command line and environment, the file names in its maps and links.
They are data, shown escaped, never a name to open again: the program
is /proc/PID/exe opened itself (the file the process runs, wherever its
name points, in whatever mount namespace), and it is run only as
trust.py allows.  Every file is read through one descriptor of
/proc/PID, which keeps naming that process: a pid reused meanwhile
fails the reads instead of answering for someone else.

    with Process(pid) as p:
        p.comm, p.cmdline(), p.library(), p.sockets(), p.program(...)

Raises OSError: FileNotFoundError when there is no such process,
ProcessLookupError when it ends while being asked, PermissionError when
it is not ours to inspect."""

import os
import re

from . import capabilities, programs, sockets

# The library's file as /proc/PID/maps names it (a build or an install).
MAPPED_RE = re.compile(r"/\S*libsockboost[^ /\n]*\.so")


class Process:
    def __init__(self, pid):
        self.pid = pid
        self.dir = os.open("/proc/%d" % pid,
                           os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)

    def close(self):
        if self.dir >= 0:
            os.close(self.dir)
        self.dir = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def open(self, name, flags=os.O_RDONLY):
        """/proc/PID/NAME opened, a magic link followed to its object."""
        return os.open(name, flags | os.O_CLOEXEC, dir_fd=self.dir)

    def read(self, name):
        """The bytes of /proc/PID/NAME."""
        fd = self.open(name)
        try:
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        finally:
            os.close(fd)

    def text(self, name):
        """/proc/PID/NAME as str, every byte kept (surrogateescape)."""
        return self.read(name).decode("utf-8", "surrogateescape")

    @property
    def comm(self):
        return self.text("comm").rstrip("\n") or "?"

    def cmdline(self):
        """Its arguments, program name first."""
        return self.text("cmdline").split("\0")[:-1]

    def environment(self, prefix=""):
        """{name: value} of its environment's variables that start with
        PREFIX."""
        found = {}
        for item in self.text("environ").split("\0"):
            name, equals, value = item.partition("=")
            if equals and name.startswith(prefix):
                found.setdefault(name, value)
        return found

    def status(self, *names):
        """The values of each NAME: line of /proc/PID/status (one read)."""
        found = {}
        for line in self.text("status").splitlines():
            key, _, values = line.partition(":")
            found.setdefault(key, values.split())
        missing = [name for name in names if name not in found]
        if missing:
            raise ValueError("/proc/%d/status has no %s" % (self.pid,
                                                             missing[0]))
        return [found[name] for name in names]

    def status_field(self, name):
        """The values of the NAME: line of /proc/PID/status."""
        return self.status(name)[0]

    def uid(self):
        """Its effective uid."""
        return int(self.status_field("Uid")[1])

    def own_pid(self):
        """Its pid in its own pid namespace (in a container, the pid its
        daemon knows it by)."""
        return int(self.status_field("NSpid")[-1])

    def exe_name(self):
        """The name /proc gives its program: a path in the process's own
        mount namespace, maybe ending in ' (deleted)'.  Data only."""
        return os.readlink("exe", dir_fd=self.dir)

    def runs(self, path):
        """Whether its program is the file PATH names here."""
        fd = self.open("exe")
        try:
            st, there = os.fstat(fd), os.stat(path)
        finally:
            os.close(fd)
        return (st.st_dev, st.st_ino) == (there.st_dev, there.st_ino)

    def library(self):
        """The path of the libsockboost library it maps, or None."""
        found = MAPPED_RE.findall(self.text("maps"))
        return min(found) if found else None

    def maps(self, path):
        """Whether it maps the file PATH names here (by device and inode,
        not by the name in its maps)."""
        st = os.stat(path)
        want = "%02x:%02x %d" % (os.major(st.st_dev), os.minor(st.st_dev),
                                 st.st_ino)
        return any(" ".join(line.split()[3:5]) == want
                   for line in self.text("maps").splitlines())

    def socket_fds(self):
        """{inode: [fd, ...]} for the sockets among its descriptors."""
        found = {}
        fd_dir = self.open("fd", os.O_RDONLY | os.O_DIRECTORY)
        try:
            for fd in os.listdir(fd_dir):
                try:
                    target = os.readlink(fd, dir_fd=fd_dir)
                except FileNotFoundError:
                    continue               # closed since listed
                if target.startswith("socket:["):
                    found.setdefault(int(target[8:-1]), []).append(int(fd))
        finally:
            os.close(fd_dir)
        return {inode: sorted(fds) for inode, fds in found.items()}

    def sockets(self):
        """Its unix stream and TCP sockets, by their first descriptor
        (sockets.sockets_of).  Raises sockets.SsError when ss fails."""
        return sockets.sockets_of(self.socket_fds())

    def may_force(self):
        """Whether it may use SO_SNDBUFFORCE; None when that cannot be
        known (capabilities.may_force)."""
        return capabilities.may_force(self)

    def nbd_program(self):
        """The name of the NBD program it runs, or None (also when its
        program is not ours to see)."""
        try:
            name = os.path.basename(self.exe_name())
        except PermissionError:
            return None
        return name if programs.is_nbd_program(name) else None

    def program(self, changes):
        """Its NBD program (programs.Program) with CHANGES (a
        programs.Changes for this process), or None."""
        name = self.nbd_program()
        if name is None:
            return None
        try:
            fd = self.open("exe")
        except PermissionError:
            fd = None
        try:
            return programs.describe(changes, name, fd, self.exe_name())
        finally:
            if fd is not None:
                os.close(fd)
