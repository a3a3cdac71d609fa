#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A naive NBD client with extended headers over TCP: it negotiates
# NBD_OPT_EXTENDED_HEADERS, then writes COUNT 4 KiB blocks at queue
# depth 1, each 32-byte request header and its payload in separate
# send() calls (TCP_NODELAY on, so without corking each goes out as its
# own segment), waiting for each reply.  Then it prints "done", waits
# (at most 60 s) for the file QUIT to appear, and disconnects.
#   ext-split-writer.py PORT COUNT EXPECTED QUIT
# EXPECTED receives the bytes written, for the test to compare.
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nbdproto as nbd  # noqa: E402

REQUEST_EXT = struct.Struct(">IHHQQQ")   # struct nbd_request_ext
REPLY_EXT = struct.Struct(">IHHQQQ")     # struct nbd_extended_reply
BLOCK = 4096


def option(s, opt, data=b""):
    """Send option OPT; return the reply types up to the final one."""
    s.sendall(nbd.OPTION.pack(nbd.NBD_IHAVEOPT, opt, len(data)) + data)
    types = []
    while True:
        magic, ropt, rtype, rlen = nbd.OPTION_REPLY.unpack(
            nbd.recv_exact(s, nbd.OPTION_REPLY.size))
        if magic != nbd.NBD_REP_MAGIC or ropt != opt:
            sys.exit("bad option reply to %d" % opt)
        nbd.recv_exact(s, rlen)
        types.append(rtype)
        if rtype != nbd.NBD_REP_INFO:
            return types


def main():
    port, count, expected, quit_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    magic, ihaveopt, _ = nbd.GREETING.unpack(nbd.recv_exact(s, nbd.GREETING.size))
    if magic != nbd.NBD_MAGIC or ihaveopt != nbd.NBD_IHAVEOPT:
        sys.exit("not a fixed-newstyle NBD server")
    s.sendall(struct.pack(">I", nbd.NBD_FLAG_C_FIXED_NEWSTYLE | nbd.NBD_FLAG_C_NO_ZEROES))
    if option(s, nbd.NBD_OPT_EXTENDED_HEADERS) != [nbd.NBD_REP_ACK]:
        sys.exit("the server refused extended headers")
    if option(s, nbd.NBD_OPT_GO, struct.pack(">IH", 0, 0))[-1] != nbd.NBD_REP_ACK:
        sys.exit("NBD_OPT_GO failed")
    data = bytearray()
    for i in range(count):
        block = bytes([(i * 7 + j) % 251 for j in range(0, BLOCK, 16)]) * 16
        s.send(REQUEST_EXT.pack(nbd.NBD_EXTENDED_REQUEST_MAGIC, 0, nbd.NBD_CMD_WRITE,
                                i, i * BLOCK, BLOCK))
        s.sendall(block)
        magic, flags, rtype, cookie, _, length = REPLY_EXT.unpack(
            nbd.recv_exact(s, REPLY_EXT.size))
        if (magic != nbd.NBD_EXTENDED_REPLY_MAGIC or cookie != i or length != 0
                or rtype != nbd.NBD_REPLY_TYPE_NONE or not flags & nbd.NBD_REPLY_FLAG_DONE):
            sys.exit("unexpected reply to write %d: type %d length %d" % (i, rtype, length))
        data += block
    with open(expected, "wb") as f:
        f.write(data)
    print("done", flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(quit_file) and time.monotonic() < deadline:
        time.sleep(0.05)
    s.sendall(REQUEST_EXT.pack(nbd.NBD_EXTENDED_REQUEST_MAGIC, 0, nbd.NBD_CMD_DISC, count, 0, 0))
    s.close()


main()
