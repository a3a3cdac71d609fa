#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A TCP connection to itself on 127.0.0.1 beside HELD other TCP sockets
(never bound), for the watcher's sweep test: write READY once connected,
then wait (bounded) until both ends have TCP_NODELAY, set from outside;
print whether each has.

    watcher-pair.py HELD READY
"""

import socket
import sys
import time

WAIT_SECONDS = 30


def nodelay(s):
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def main():
    held = [socket.socket() for _ in range(int(sys.argv[1]))]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    client = socket.create_connection(listener.getsockname())
    accepted = listener.accept()[0]
    with open(sys.argv[2], "w") as f:
        f.write("ready\n")
    deadline = time.monotonic() + WAIT_SECONDS
    while (not (nodelay(client) and nodelay(accepted))
           and time.monotonic() < deadline):
        time.sleep(0.01)
    print(nodelay(client), nodelay(accepted))
    del held


main()
