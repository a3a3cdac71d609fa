#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two ends of one unix stream connection, run as two processes, to
show what a process can do to the other end's socket.

  host-unix-peer.py serve ADDRESS
      listen on ADDRESS, accept one connection, wait for its one byte,
      then print the accepted socket's SO_SNDBUF, and hold the socket
      until killed
  host-unix-peer.py visit ADDRESS [--name NAME]
      take the name NAME (prctl PR_SET_NAME), connect to ADDRESS, ask
      for the peer's name (getpeername) and its own (getsockname), then
      send one byte

An ADDRESS starting with '@' is abstract (no file, no permissions: any
user of the network namespace may connect)."""

import argparse
import signal
import socket
import sys

from procname import set_name


def address(text):
    return "\0" + text[1:] if text.startswith("@") else text


def serve(where):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(where)
    listener.listen(1)
    print("listening", flush=True)
    conn, _ = listener.accept()
    conn.recv(1)
    print(conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF), flush=True)
    signal.pause()


def visit(where, name):
    if name:
        set_name(name)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(where)
    conn.getpeername()
    conn.getsockname()
    conn.send(b"x")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=("serve", "visit"))
    p.add_argument("address")
    p.add_argument("--name")
    args = p.parse_args()
    if args.role == "serve":
        serve(address(args.address))
    else:
        visit(address(args.address), args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
