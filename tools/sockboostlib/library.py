# SPDX-License-Identifier: MIT
"""Whether a running process has libsockboost mapped: the one test that
sockboost status and sockboost libvirt status both make."""

import re

# The library's file as /proc/PID/maps names it (a build or an install).
MAPPED_RE = re.compile(r"/\S*libsockboost[^ /\n]*\.so")


def mapped_library(pid):
    """The path of the libsockboost library mapped into PID, or None.
    Raises OSError when the process's maps cannot be read."""
    with open("/proc/%d/maps" % pid, "rb") as f:
        found = MAPPED_RE.findall(f.read().decode("utf-8", "surrogateescape"))
    return min(found) if found else None
