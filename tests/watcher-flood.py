#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A hostile program for the watcher's tests: hold SOCKETS TCP sockets,
then bind a new one (port 0 on 127.0.0.1) and close it, again and again
for SECONDS: each bind is an event that sends the watcher through all the
sockets held.  Prints how many binds it made.

    watcher-flood.py SOCKETS SECONDS
"""

import socket
import sys
import time


def main():
    held = [socket.socket() for _ in range(int(sys.argv[1]))]
    deadline = time.monotonic() + float(sys.argv[2])
    binds = 0
    while time.monotonic() < deadline:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.close()
        binds += 1
    print(binds)
    del held


main()
