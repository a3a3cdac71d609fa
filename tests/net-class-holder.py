#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A process whose sockets are made in the cgroup v1 class the test gave
it (helpers-net-class.bash): it takes the name NAME (host mode's filter
goes by name), waits until GO exists (the test has moved it into its
net_cls and net_prio cgroups by then), makes a TCP listener on
127.0.0.1, a client connected to it, the connection accepted from it and
a unix stream pair, writes READY and waits.

    net-class-holder.py NAME GO READY"""

import os
import socket
import sys
import time

from procname import set_name

WAIT_SECONDS = 20


def main():
    name, go, ready = sys.argv[1:]
    set_name(name)
    deadline = time.monotonic() + WAIT_SECONDS
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            return 1
        time.sleep(0.01)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    pair = socket.socketpair()
    with open(ready, "w") as f:
        f.write("ready\n")
    # Its sockets stay open while it sleeps (main holds them).
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
