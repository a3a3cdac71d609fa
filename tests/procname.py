# SPDX-License-Identifier: MIT
"""A test process's name as the kernel keeps it, for host mode's
program filter, which goes by name: set_name("qemu-nbd") renames the
calling thread (prctl PR_SET_NAME), which is the process's name when
called from its main thread (the thread group leader)."""

import ctypes

PR_SET_NAME = 15


def set_name(name):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NAME, name.encode(), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NAME)")
