# SPDX-License-Identifier: MIT
"""Every program the benchmark runs, named in this one place.

Workloads never spell a path or a program name themselves: they ask
program(NAME) for the command that runs it and need(NAME...) to skip when
one is missing, so running the workloads with other programs (another
PATH, another root) is a change here only.
"""

import os
import shutil
import subprocess

from sockboostlib import paths

from sockboostlib.measure.procs import Skip

# Built with this source tree: where paths finds each.
BUILT = {
    "sbnbd-server": paths.nbd_program,
    "sbnbd-client": paths.nbd_program,
    "sb-socketpair-bench": paths.helper,
    "sb-overhead-bench": paths.helper,
    "sb-config": paths.helper,
}

# Installed on the machine, found on PATH; mkfs.ext4 lives in /usr/sbin,
# which a user's PATH may lack.
EXTERNAL = ("qemu-nbd", "qemu-img", "nbdcopy", "nbdkit", "fio",
            "qemu-system-x86_64", "mkfs.ext4", "openssl", "gnuplot")
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", os.defpath),
                               "/usr/sbin", "/sbin"])

# The programs whose versions decide what the library changes, with the
# option that prints the version.
VERSIONED = (("qemu-nbd", "--version"), ("nbdkit", "--version"),
             ("nbdcopy", "--version"), ("fio", "--version"))

# The NBD programs a run with --root takes from that root (roots.py);
# the benchmark's own tools (image makers, gnuplot) stay this machine's.
ROOT_PROGRAMS = ("qemu-nbd", "qemu-img", "nbdcopy", "nbdkit", "fio",
                 "qemu-system-x86_64")
# Every --root, and the one the current run uses (None: this machine).
ROOTS = []
current_root = None


def use_root(root):
    """Run ROOT_PROGRAMS from ROOT (a roots.Root) from now on; None for
    this machine's."""
    global current_root
    current_root = root


def locate(name, root=None):
    """Path of program NAME (in ROOT's file system if given), or None when
    it is not there."""
    if name in BUILT:
        path = BUILT[name](name)
        return path if os.access(path, os.X_OK) else None
    if name not in EXTERNAL:
        raise ValueError("unknown program %r" % name)
    if root is None or name not in ROOT_PROGRAMS:
        return shutil.which(name, path=SEARCH_PATH)
    found = shutil.which(name, path=os.pathsep.join(
        root.path + d for d in SEARCH_PATH.split(os.pathsep) if d))
    return found and found[len(root.path):]


def program(name):
    """The command (argv prefix) that runs program NAME, from the current
    root when it has one."""
    root = current_root if name in ROOT_PROGRAMS else None
    path = locate(name, root) or name
    return [path] if root is None else ["chroot", root.path, path]


def library_built():
    return os.access(paths.library(), os.R_OK)


def need(*names):
    """Skip the workload unless every program in NAMES is there, and in
    every root given for the NBD programs."""
    for root in ROOTS:
        gone = [n for n in names if n in ROOT_PROGRAMS
                and locate(n, root) is None]
        if gone:
            raise Skip("%s %s not installed in %s" % (
                ", ".join(gone), "is" if len(gone) == 1 else "are",
                root.path))
    missing = [n for n in names if locate(n) is None]
    built = [BUILT[n](n) for n in missing if n in BUILT]
    if built:
        raise Skip(paths.missing(built[0]))
    if missing:
        raise Skip("%s %s not installed" % (
            ", ".join(missing), "is" if len(missing) == 1 else "are"))


def need_library():
    if not library_built():
        raise Skip(paths.missing(paths.library()))


def version(name, option):
    """First line of NAME's version output (from the current root), or
    None."""
    if locate(name, current_root) is None:
        return None
    try:
        r = subprocess.run(program(name) + [option], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (r.stdout.strip().splitlines() or [""])[0]
    # "/usr/bin/qemu-nbd 7.2.22 (Debian 1:7.2+dfsg-7)": the path and the
    # distribution's part are noise in a table.
    words = first.split(" (")[0].split()
    if words and os.sep in words[0]:
        words[0] = os.path.basename(words[0])
    return " ".join(words) or None


def versions(root=None):
    """"qemu-nbd 7.2.22, nbdkit 1.32.5, ..." for the programs present (in
    ROOT if given)."""
    saved = current_root
    use_root(root)
    try:
        found = [version(n, o) for n, o in VERSIONED]
    finally:
        use_root(saved)
    return ", ".join(v for v in found if v)
