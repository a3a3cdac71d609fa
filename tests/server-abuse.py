#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Clients that hold a server's resources: idle, slow or done with a big
read, to check that the server's limits hold.

    server-abuse.py hold SOCKET COUNT PHASE READY RELEASE
        Open COUNT connections to the unix SOCKET one after another and
        bring each to PHASE: 'greeting' (greeting read, nothing sent:
        idle in the handshake), 'transmission' (NBD_OPT_GO done) or
        'read=BYTES' (then one READ of BYTES, its reply read whole).
        (A connection the server closes on the way is left as it is.)
        Write 'ready' to the file READY and wait for the file RELEASE
        (at most 60 s); then print 'closed:' and the numbers (from 0) of
        the connections the server had closed by then, and exit.

    server-abuse.py slowloris SOCKET INTERVAL LIMIT
        Read the greeting, then send a long option one byte every
        INTERVAL seconds until the server closes the connection or LIMIT
        seconds have passed.  Print 'closed after S s' or 'open after
        LIMIT s' (S since the connection was made).

Protocol numbers come from nbd/nbd-protocol.h through nbdproto.py.
"""

import os
import socket
import struct
import sys
import time

import nbdproto as nbd

TIMEOUT = 20
RELEASE_WAIT = 60
CLIENT_FLAGS = nbd.NBD_FLAG_C_FIXED_NEWSTYLE | nbd.NBD_FLAG_C_NO_ZEROES


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(TIMEOUT)
    s.connect(path)
    return s


def greeting(s):
    magic, _, _ = nbd.GREETING.unpack(nbd.recv_exact(s, nbd.GREETING.size))
    if magic != nbd.NBD_MAGIC:
        sys.exit("server-abuse.py: bad greeting")


def go(s):
    s.sendall(struct.pack(">I", CLIENT_FLAGS)
              + nbd.OPTION.pack(nbd.NBD_IHAVEOPT, nbd.NBD_OPT_GO, 6)
              + struct.pack(">IH", 0, 0))
    while True:
        _, _, rtype, rlen = nbd.OPTION_REPLY.unpack(
            nbd.recv_exact(s, nbd.OPTION_REPLY.size))
        nbd.recv_exact(s, rlen)
        if rtype == nbd.NBD_REP_ACK:
            return
        if rtype != nbd.NBD_REP_INFO:
            sys.exit("server-abuse.py: GO refused: %#x" % rtype)


def read(s, length):
    s.sendall(nbd.REQUEST.pack(nbd.NBD_REQUEST_MAGIC, 0, nbd.NBD_CMD_READ,
                               1, 0, length))
    _, error, _ = nbd.SIMPLE_REPLY.unpack(
        nbd.recv_exact(s, nbd.SIMPLE_REPLY.size))
    if error != 0:
        sys.exit("server-abuse.py: READ of %d bytes: error %d" % (length, error))
    left = length
    while left > 0:
        chunk = s.recv(min(left, 1 << 20))
        if not chunk:
            sys.exit("server-abuse.py: server closed during the READ reply")
        left -= len(chunk)


def bring_to(s, phase):
    greeting(s)
    if phase == "greeting":
        return
    go(s)
    if phase.startswith("read="):
        read(s, int(phase[len("read="):]))


def closed_by_server(s):
    """True if the server has closed S: EOF or reset, nothing to read."""
    s.setblocking(False)
    try:
        return s.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit("server-abuse.py: %s never appeared" % path)
        time.sleep(0.02)


def hold(path, count, phase, ready, release):
    conns = []
    for _ in range(int(count)):
        conns.append(connect(path))
        try:
            bring_to(conns[-1], phase)
        except (EOFError, ConnectionResetError, BrokenPipeError):
            pass  # closed at once: the report says so
    with open(ready, "w") as f:
        f.write("ready\n")
    wait_for(release, RELEASE_WAIT)
    closed = [str(i) for i, s in enumerate(conns) if closed_by_server(s)]
    print(" ".join(["closed:"] + closed))


def slowloris(path, interval, limit):
    start = time.monotonic()
    s = connect(path)
    greeting(s)
    trickle = (struct.pack(">I", CLIENT_FLAGS)
               + nbd.OPTION.pack(nbd.NBD_IHAVEOPT, nbd.NBD_OPT_INFO, 4000)
               + b"\0" * 4000)
    for byte in trickle:
        if time.monotonic() - start > float(limit):
            break
        try:
            s.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            pass
        if closed_by_server(s):
            print("closed after %.1f s" % (time.monotonic() - start))
            return
        s.settimeout(TIMEOUT)
        time.sleep(float(interval))
    print("open after %s s" % limit)


def main():
    commands = {"hold": (hold, 5), "slowloris": (slowloris, 3)}
    if len(sys.argv) < 2 or sys.argv[1] not in commands \
       or len(sys.argv) != 2 + commands[sys.argv[1]][1]:
        sys.exit(__doc__)
    command = commands[sys.argv[1]][0]
    command(*sys.argv[2:])


if __name__ == "__main__":
    main()
