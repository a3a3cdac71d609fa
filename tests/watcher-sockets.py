#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TCP sockets for the watcher's tests (helpers-watcher.bash), on
127.0.0.1 (::1 with -6 first): a listener, two clients connected to it, and the two sockets
accepted from it, made and accepted at the moments the test chooses; then
wait (bounded) until each has TCP_NODELAY, set from outside, and print
what each has as one JSON object.

    watcher-sockets.py READY GO
        listen, connect both clients and accept the first at once, then
        write READY; once GO exists, wait a second and accept the second
        (so that it is still in the listener's queue for a moment after
        the watcher was let go)
    watcher-sockets.py --before READY
        all five at once, then write READY and wait
"""

import json
import os
import socket
import sys
import time

WAIT_SECONDS = 20


def nodelay(s):
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def wait_for_file(path):
    deadline = time.monotonic() + WAIT_SECONDS
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def main():
    args = sys.argv[1:]
    family, loopback = socket.AF_INET, "127.0.0.1"
    if args[0] == "-6":
        family, loopback = socket.AF_INET6, "::1"
        args = args[1:]
    before = args[0] == "--before"
    ready, go = args[1] if before else args[0], None if before else args[1]
    listener = socket.socket(family)
    listener.bind((loopback, 0))
    listener.listen(8)
    clients = [socket.create_connection(listener.getsockname()[:2])
               for _ in range(2)]
    accepted = [listener.accept()[0]]
    if before:
        accepted.append(listener.accept()[0])
    with open(ready, "w") as f:
        f.write("ready\n")
    if go:
        wait_for_file(go)
        time.sleep(1)
        accepted.append(listener.accept()[0])
    sockets = {"listener": listener, "client1": clients[0],
               "client2": clients[1], "accepted1": accepted[0],
               "accepted2": accepted[1]}
    deadline = time.monotonic() + WAIT_SECONDS
    while (not all(nodelay(s) for s in sockets.values())
           and time.monotonic() < deadline):
        time.sleep(0.01)
    print(json.dumps({name: nodelay(s) for name, s in sockets.items()}))


main()
