#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A listener on 127.0.0.1 bound by a thread named NAME, not by the
process's main thread, for the watcher's tests: wait (bounded) until it
has TCP_NODELAY, set from outside; print whether it has.

    watcher-thread.py NAME
"""

import ctypes
import socket
import sys
import threading
import time

PR_SET_NAME = 15
WAIT_SECONDS = 10
result = []


def bind_as(name):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NAME, name.encode(), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    deadline = time.monotonic() + WAIT_SECONDS
    while (not listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
           and time.monotonic() < deadline):
        time.sleep(0.01)
    result.append(listener.getsockopt(socket.IPPROTO_TCP,
                                      socket.TCP_NODELAY) != 0)


thread = threading.Thread(target=bind_as, args=(sys.argv[1],))
thread.start()
thread.join()
print(result[0] if result else "failed")
