#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Hold one socket of each kind that sockboost attach must tell apart, and
# report their options as the holder itself sees them.
#   attach-holder.py [--big]   prints "ready", then answers lines on stdin:
#     report    one line per socket: NAME sndbuf=N nodelay=N|-
#     accept    connect to its own TCP listener and accept, as tcp-accepted
# --big adds a unix stream pair whose buffer is forced to 3 MiB (tb 6 MiB),
# larger than what attach requests by default.
import socket
import sys

SO_SNDBUFFORCE = 32  # asm-generic/socket.h; Python does not name it
peers = []  # the other ends, held open


def pair(kind):
    mine, peer = socket.socketpair(socket.AF_UNIX, kind)
    peers.append(peer)
    return mine


def held_sockets(big):
    held = {}
    held["unix-stream-a"], held["unix-stream-b"] = socket.socketpair(
        socket.AF_UNIX, socket.SOCK_STREAM)
    held["unix-dgram"] = pair(socket.SOCK_DGRAM)
    held["unix-seqpacket"] = pair(socket.SOCK_SEQPACKET)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held["tcp-listener"] = listener
    held["tcp-client"] = socket.create_connection(listener.getsockname())
    held["tcp-server"], _ = listener.accept()
    held["tcp-unconnected"] = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held["udp"] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if big:
        held["unix-big"] = pair(socket.SOCK_STREAM)
        held["unix-big"].setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 3 << 20)
    return held


def report(held):
    for name, s in held.items():
        sndbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        nodelay = "-"
        if s.type == socket.SOCK_STREAM and s.family == socket.AF_INET:
            nodelay = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        print(f"{name} sndbuf={sndbuf} nodelay={nodelay}", flush=True)


def main():
    held = held_sockets("--big" in sys.argv[1:])
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "report":
            report(held)
        elif line.strip() == "accept":
            client = socket.create_connection(held["tcp-listener"].getsockname())
            peers.append(client)
            held["tcp-accepted"], _ = held["tcp-listener"].accept()
            report(held)
        print("done", flush=True)


main()
