#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A process that holds a great many sockets: a TCP listener on
127.0.0.1 first, then COUNT unix sockets (socketpairs), under the name
NAME.  Prints "ready" and the listener's port, then sleeps.

  host-socket-hoard.py NAME COUNT"""

import resource
import socket
import sys
import time

from procname import set_name


def main():
    name, count = sys.argv[1], int(sys.argv[2])
    set_name(name)
    want = count + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    held = [socket.socketpair() for _ in range(count // 2)]
    print("ready", listener.getsockname()[1], len(held) * 2, flush=True)
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
