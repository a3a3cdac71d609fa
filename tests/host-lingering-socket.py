#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A process that makes root's copy of its socket the last one, on a
socket whose close lingers: a TCP connection to itself whose peer never
reads, SO_LINGER on for LINGER seconds and its send buffer full, so that
closing the socket's last reference waits LINGER seconds for the data.
Prints "ready" with its socket's descriptor, then on SIGUSR1 closes that
descriptor (its own close is not the last while root holds a copy, so it
returns at once) and prints how long its close took; then sleeps.

  host-lingering-socket.py LINGER"""

import os
import signal
import socket
import struct
import sys
import time


def main():
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    conn = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                    struct.pack("ii", 1, int(sys.argv[1])))
    conn.setblocking(False)
    try:
        while True:
            conn.send(b"x" * 65536)
    except BlockingIOError:
        pass
    print("ready", conn.fileno(), flush=True)
    signal.sigwait([signal.SIGUSR1])
    start = time.monotonic()
    os.close(conn.detach())
    print("closed its own in %.3f s" % (time.monotonic() - start), flush=True)
    peer.recv(0)
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
