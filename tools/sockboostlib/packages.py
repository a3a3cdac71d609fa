# SPDX-License-Identifier: MIT
"""What the Debian package database says of a file: which package
installed it, and at which version.  For a program that may not be run
(trust.py), the version comes from here when the file is byte for byte
the one its package installed."""

import hashlib
import os
import re
import subprocess


def installed(fd, path):
    """(package, its version, the upstream version) of the package that
    installed PATH, when the file open at FD is that file as installed
    (its MD5 sum is the one dpkg recorded); else None."""
    digest = None
    for candidate in dict.fromkeys((path, unmerged(path))):
        package = dpkg_owner(candidate)
        if not package:
            continue
        digest = digest or md5_of(fd)
        if dpkg_md5(package, candidate) == digest:
            version = dpkg_query("-W", "-f", "${Version}", package) or ""
            number = upstream_version(version)
            return (package, version, number) if number else None
    return None


def unmerged(path):
    """The name dpkg may know PATH by on a merged-/usr system, where a
    package installed /bin/X and the file is /usr/bin/X."""
    for d in ("/usr/bin/", "/usr/sbin/", "/usr/lib/"):
        if path.startswith(d):
            return path[len("/usr"):]
    return path


def dpkg_query(*args):
    """dpkg-query's output for ARGS, or None when it fails or is missing."""
    try:
        r = subprocess.run(["dpkg-query"] + list(args),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    return r.stdout.decode("utf-8", "surrogateescape")


def dpkg_owner(path):
    """The one package dpkg says installed PATH, or None (none, several,
    a diversion, or a name dpkg-query would read as a pattern)."""
    if any(c in path for c in "*?[]\\") or not path.startswith("/"):
        return None
    out = dpkg_query("-S", path)
    if out is None or re.search(r"^diversion by ", out, re.M):
        return None
    owners = [line.partition(": ")[0] for line in out.splitlines()
              if line.partition(": ")[2] == path]
    if len(owners) != 1 or "," in owners[0]:
        return None
    return owners[0]


def dpkg_md5(package, path):
    """The MD5 sum dpkg recorded for PACKAGE's file PATH, or None."""
    out = dpkg_query("--control-show", package, "md5sums") or ""
    for line in out.splitlines():
        digest, _, name = line.partition("  ")
        if name == path.lstrip("/"):
            return digest
    return None


def md5_of(fd):
    """The MD5 sum of the file open at FD, as dpkg writes it."""
    digest, offset = hashlib.md5(), 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return digest.hexdigest()
        digest.update(chunk)
        offset += len(chunk)


def upstream_version(debian_version):
    """The upstream part of a Debian version as digits and dots
    ('1:7.2+dfsg-7' gives 7.2), or None."""
    found = re.match(r"(?:[0-9]+:)?([0-9]+(?:\.[0-9]+)+)", debian_version)
    return found.group(1) if found else None
