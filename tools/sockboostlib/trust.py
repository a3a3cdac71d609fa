# SPDX-License-Identifier: MIT
"""The rule of every tool that root runs on other users' processes and
files (status, doctor, libvirt): never execute, trust or follow what a
less privileged user controls.  doc/HACKING.md states it; this module is
where it is decided, and nowhere else.

A file is trusted when it and every directory above it belong to root
(or to the user running the tool, who controls them anyway) and none of
them may be written by anyone else: no group or other write permission,
but for a sticky directory such as /tmp, where others cannot replace an
entry that is not theirs.  Such a file is opened one component at a time
without following a link, so that what was checked is what is read; a
program is run from the descriptor that was checked (/proc/self/fd/N),
never again by its name."""

import errno
import os
import stat
import subprocess

# What a program we run gets as its environment: nothing of ours (no
# LD_PRELOAD, no SOCKBOOST_*), nothing that changes its output.
RUN_ENVIRONMENT = {"PATH": os.defpath, "LC_ALL": "C"}


class Untrusted(Exception):
    """Why a file may not be trusted, in words (a path in it is shown
    escaped by whoever prints it)."""


def owners():
    """The users whose files the tool may trust: root and itself."""
    return {0, os.geteuid()}


def check(st, what):
    """Raise Untrusted unless ST (of WHAT, a path) is owned by one of
    owners() and writable by nobody else."""
    if st.st_uid not in owners():
        raise Untrusted("%s belongs to uid %d" % (what, st.st_uid))
    if stat.S_ISLNK(st.st_mode):
        raise Untrusted("%s is a symbolic link" % what)
    shared = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if shared and not (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
        raise Untrusted("%s may be written by %s" % (
            what, "others" if st.st_mode & stat.S_IWOTH else "its group"))


def components(path):
    """The names of absolute PATH from the root down; Untrusted for a
    path that is relative or climbs ('..')."""
    if not path.startswith("/"):
        raise Untrusted("%s is not an absolute path" % path)
    names = [n for n in path.split("/") if n not in ("", ".")]
    if ".." in names or not names:
        raise Untrusted("%s is not a plain path to a file" % path)
    return names


def open_trusted(path):
    """A read-only descriptor of regular file PATH, opened without
    following any link, once it and every directory above it passed
    check().  Raises Untrusted, or OSError when a component is missing
    or cannot be opened."""
    names = components(path)
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        check(os.fstat(fd), "/")
        for i, name in enumerate(names, 1):
            where = "/" + "/".join(names[:i])
            flags = (os.O_RDONLY | os.O_NONBLOCK if i == len(names)
                     else os.O_PATH | os.O_DIRECTORY)
            parent, fd = fd, -1
            try:
                fd = open_beneath(parent, name, where, flags)
            finally:
                os.close(parent)
            check(os.fstat(fd), where)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Untrusted("%s is not a regular file" % path)
        return fd
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


def open_beneath(dir_fd, name, what, flags):
    """NAME in the directory open at DIR_FD (WHAT, for messages), not
    through a link."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC,
                       dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR) and stat.S_ISLNK(
                os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise Untrusted("%s is a symbolic link" % what) from None
        raise


def same_file(fd, other_fd):
    """Whether two descriptors are one file (device and inode)."""
    a, b = os.fstat(fd), os.fstat(other_fd)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def runnable(fd, path):
    """Raise Untrusted unless the program open at FD may be run by us:
    it is the file that PATH names on this host (not one of the same
    name in another mount namespace, not one replaced since), and PATH
    is trusted."""
    checked = open_trusted(path)
    try:
        if not same_file(fd, checked):
            raise Untrusted("%s on this host is not the file the process "
                            "runs" % path)
    finally:
        os.close(checked)


def run_opened(fd, argv0, args, timeout):
    """Run the program open at FD (after runnable()) with ARGV0 and ARGS,
    from /, in RUN_ENVIRONMENT, with no input; its output and errors
    together, as bytes.  Raises OSError or subprocess.TimeoutExpired."""
    return subprocess.run(
        [argv0] + list(args), executable="/proc/self/fd/%d" % fd,
        pass_fds=(fd,), env=RUN_ENVIRONMENT, cwd="/",
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, timeout=timeout).stdout


def open_directory(path):
    """An O_PATH descriptor of directory PATH (absolute), opened one
    component at a time without following any link: what is then made
    in it through the descriptor lands there and nowhere else, even if a
    less privileged user owns a directory above (as the prometheus user
    owns /var/lib/prometheus on Debian).  Raises Untrusted for a link or
    a path that climbs, OSError when a component is missing."""
    names = components(path) if path != "/" else []
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for i, name in enumerate(names, 1):
            parent, fd = fd, -1
            try:
                fd = open_beneath(parent, name, "/" + "/".join(names[:i]),
                                  os.O_PATH | os.O_DIRECTORY)
            finally:
                os.close(parent)
        return fd
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
