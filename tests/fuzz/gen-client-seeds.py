#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write seed inputs for fuzz-client into tests/fuzz/corpus/client/: what a
real sbnbd-server said to sbnbd-client, recorded through a proxy, for the
client settings the harness's selector byte stands for (structured or
simple replies, extended headers, queue depth, read or verify), from a
sparse file export so that reads map holes with block status first.
Needs a built tree.

    tests/fuzz/gen-client-seeds.py
"""

import os
import select
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus", "client")


def proxy(listener, server_path, record):
    """Forward one connection both ways; keep the server's bytes."""
    c, _ = listener.accept()
    s = socket.socket(socket.AF_UNIX)
    s.connect(server_path)
    peers = {c: s, s: c}
    while peers:
        for r in select.select(list(peers), [], [], 10)[0]:
            data = r.recv(65536)
            if not data:
                peers[r].shutdown(socket.SHUT_WR)
                del peers[r]
                continue
            if r is s:
                record.append(data)
            peers[r].sendall(data)


def capture(tmp, selector, server_sock):
    path = os.path.join(tmp, "proxy-%d" % selector)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(1)
    record = []
    t = threading.Thread(target=proxy, args=(listener, server_sock, record))
    t.start()
    args = [os.path.join(ROOT, "nbd", "sbnbd-client"), "-q",
            "--request-size", "64K", "--queue-depth", str(1 + ((selector >> 1) & 3))]
    if not selector & 1:
        args.append("--no-structured")
    if not selector & 0x10:
        args.append("--no-extended")
    args += ["verify" if selector & 8 else "read",
             "nbd+unix:///?socket=" + path]
    # verify finds the holes' zeroes wrong (exit 1): that is traffic too.
    r = subprocess.run(args, timeout=30, stderr=subprocess.DEVNULL)
    if r.returncode != 0 and not (selector & 8 and r.returncode == 1):
        raise RuntimeError("sbnbd-client exited %d" % r.returncode)
    t.join()
    return bytes([selector]) + b"".join(record)


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "server")
        disk = os.path.join(tmp, "disk")
        with open(disk, "wb") as f:
            f.truncate(64 << 10)
            f.seek(16 << 10)
            f.write(bytes(range(1, 252)) * 65)
        server = subprocess.Popen([os.path.join(ROOT, "nbd", "sbnbd-server"),
                                   "-U", sock, disk])
        try:
            while not os.path.exists(sock):
                time.sleep(0.02)
            for selector in (0, 1, 7, 8, 9, 15, 0x11, 0x17, 0x19, 0x1f):
                data = capture(tmp, selector, sock)
                with open(os.path.join(OUT, "seed-%02x" % selector), "wb") as f:
                    f.write(data)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
