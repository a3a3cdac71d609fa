#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Connect to itself over TCP (127.0.0.1) COUNT times, each time under
another process name PREFIX0, PREFIX1... PREFIXa... (the count in hex,
so that 4,096 names fit "qemu-system-" and the kernel's 15 bytes): what
a user does who wants to fill a table kept by process name.  With
--uids FIRST (root), connection I is made by a child running as user
FIRST + I: what many users do.  Prints how many connections it made.

  host-name-flood.py PREFIX COUNT [--uids FIRST]"""

import argparse
import os
import socket
import sys

# A child that is no longer root may not read root's Python to load the
# codec connect asks for: load it first.
import encodings.idna  # noqa: F401

from procname import set_name


def connect_as(uid, address):
    """Connect to ADDRESS from a child process of user UID."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            socket.create_connection(address).close()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("prefix")
    p.add_argument("count", type=int)
    p.add_argument("--uids", type=int)
    args = p.parse_args()
    set_name("name-flood")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    for i in range(args.count):
        set_name("%s%x" % (args.prefix, i))
        if args.uids is None:
            socket.create_connection(listener.getsockname()).close()
        else:
            connect_as(args.uids + i, listener.getsockname())
        listener.accept()[0].close()
    print(args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
