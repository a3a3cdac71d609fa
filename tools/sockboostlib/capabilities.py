# SPDX-License-Identifier: MIT
"""Whether another process may use SO_SNDBUFFORCE, which decides whether
the library forces a request above net.core.wmem_max or the kernel clips
it.  The library learns it in the process by trying; from outside, the
kernel's own test is followed: CAP_NET_ADMIN in the user namespace that
owns the process's network namespace.  A process has a capability there
when that namespace is its own and the capability is in its effective
set, when its own namespace is an ancestor of it and the capability is
in its effective set, or when it owns (by its effective uid) a namespace
on the way down from its own."""

import fcntl
import os
import struct

# linux/nsfs.h: _IO(0xb7, 1), _IO(0xb7, 2), _IO(0xb7, 4).
NS_GET_USERNS, NS_GET_PARENT, NS_GET_OWNER_UID = 0xb701, 0xb702, 0xb704
CAP_NET_ADMIN = 12


def identity(fd):
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def owner_uid(fd):
    buf = bytearray(4)
    fcntl.ioctl(fd, NS_GET_OWNER_UID, buf, True)
    return struct.unpack("I", buf)[0]


def may_force(process):
    """True or False for PROCESS (a process.Process), or None when its
    namespaces cannot be read (it is gone, or not ours to inspect)."""
    fds = []
    try:
        cap_eff, uid = process.status("CapEff", "Uid")
        has_cap = bool(int(cap_eff[0], 16) >> CAP_NET_ADMIN & 1)
        euid = int(uid[1])
        own = process.open("ns/user")
        fds.append(own)
        net = process.open("ns/net")
        fds.append(net)
        level = fcntl.ioctl(net, NS_GET_USERNS)
        fds.append(level)
        # Up from the network namespace's owner, as cap_capable() goes.
        while True:
            if identity(level) == identity(own):
                return has_cap
            try:
                parent = fcntl.ioctl(level, NS_GET_PARENT)
            except OSError:
                return False    # the top, or outside ours: not PROCESS's
            fds.append(parent)
            if identity(parent) == identity(own) and owner_uid(level) == euid:
                return True
            level = parent
    except (OSError, ValueError, IndexError):
        return None
    finally:
        for fd in fds:
            os.close(fd)
