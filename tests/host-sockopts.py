#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Connect to itself over TCP (127.0.0.1) and over a unix stream socket
(an abstract address), and print what the kernel set on the sockets, as
one JSON object: the TCP client's and accepted socket's TCP_NODELAY, the
unix client's and accepted socket's SO_SNDBUF (the server asks for its
socket's name, as QEMU does), and a new unix socket's SO_SNDBUF.

  host-sockopts.py [--name NAME] [--thread-name NAME] [--force-sndbuf BYTES]

--name: the process's name (prctl PR_SET_NAME) before any socket is
made, so that host mode's program filter can be tried on a program
that is NBD or not by name alone.  --thread-name: the sockets are made
by a thread of the process, of that name, as QEMU's NBD client connects
from its thread "nbd-connect".  --force-sndbuf: the unix client's
send buffer set with SO_SNDBUFFORCE (root) before it connects, as a
program that sized it itself would; unix_before is then what it got."""

import argparse
import json
import os
import socket
import threading

from procname import set_name

# Python's socket module does not name it; asm-generic's number.
SO_SNDBUFFORCE = getattr(socket, "SO_SNDBUFFORCE", 32)


def self_connected(family, address, force=None):
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(1)
    client = socket.socket(family, socket.SOCK_STREAM)
    if force is not None:
        client.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, force)
    before = client.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    client.connect(listener.getsockname())
    server, _ = listener.accept()
    return listener, client, server, before


def report(args, thread_name):
    if thread_name:
        set_name(thread_name)
    _, tc, ts, _ = self_connected(socket.AF_INET, ("127.0.0.1", 0))
    _, uc, us, before = self_connected(
        socket.AF_UNIX, "\0sockboost-test-sockopts.%d" % os.getpid(),
        args.force_sndbuf)
    us.getsockname()
    print(json.dumps({
        "tcp_nodelay": [s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                        for s in (tc, ts)],
        "unix_before": before,
        "unix_sndbuf": [s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
                        for s in (uc, us)],
    }))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--name")
    p.add_argument("--thread-name")
    p.add_argument("--force-sndbuf", type=int)
    args = p.parse_args()
    if args.name:
        set_name(args.name)
    if args.thread_name:
        thread = threading.Thread(target=report, args=(args, args.thread_name))
        thread.start()
        thread.join()
    else:
        report(args, None)


if __name__ == "__main__":
    main()
