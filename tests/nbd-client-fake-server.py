#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted NBD server for sbnbd-client tests: correct, odd or hostile
on purpose, one connection at a time on a unix socket.

  nbd-client-fake-server.py SOCKET SCENARIO [SIZE]

Data served is the sbnbd pattern (byte at offset o is 1 + o % 251).
Scenarios:
  good         structured OFFSET_DATA replies, in order
  simple       refuses structured replies; simple replies
  no-go        answers NBD_OPT_GO with ERR_UNSUP (EXPORT_NAME fallback)
  reorder      answers pairs of requests in reverse order, each as two
               data chunks in reverse order, then a NONE chunk with DONE
  holes        every other request is answered with an OFFSET_HOLE
  eio          READ gets a simple reply with EIO
  error-chunk  READ gets a structured ERROR chunk with a message
  oversize     a data chunk longer than the request
  bad-offset   a data chunk starting before the request
  overlap      the same data chunk twice, then DONE
  short        DONE after half the data
  bad-cookie   a reply whose cookie was never sent
  bad-magic    a reply with a wrong magic
  huge-error   an error chunk claiming 2 GiB of payload
  cut          half a reply's data, then the connection closes
"""
import os
import select
import socket
import struct
import sys

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
REP_MAGIC = 0x3E889045565A9
REQ_MAGIC = 0x25609513
SIMPLE_MAGIC = 0x67446698
STRUCT_MAGIC = 0x668E33EF
OPT_EXPORT_NAME, OPT_ABORT, OPT_GO, OPT_STRUCTURED = 1, 2, 7, 8
REP_ACK, REP_INFO = 1, 3
ERR_UNSUP = 0x80000001
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
T_NONE, T_DATA, T_HOLE, T_ERROR = 0, 1, 2, 32769
FLAGS = 1 | 4 | 256  # HAS_FLAGS, SEND_FLUSH, CAN_MULTI_CONN

PERIOD = bytes(1 + i % 251 for i in range(251))


def pattern(off, n):
    start = off % 251
    reps = (start + n) // 251 + 1
    return (PERIOD * reps)[start:start + n]


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def opt_reply(conn, opt, rtype, data=b""):
    conn.sendall(struct.pack(">QIII", REP_MAGIC, opt, rtype, len(data)) + data)


def negotiate(conn, scenario, size):
    """Returns True to go on to transmission, with structured or not."""
    conn.sendall(struct.pack(">QQH", NBDMAGIC, IHAVEOPT, 3))
    recv_exact(conn, 4)
    structured = False
    while True:
        _, opt, length = struct.unpack(">QII", recv_exact(conn, 16))
        data = recv_exact(conn, length)
        if opt == OPT_STRUCTURED and scenario != "simple":
            structured = True
            opt_reply(conn, opt, REP_ACK)
        elif opt == OPT_GO and scenario != "no-go":
            opt_reply(conn, opt, REP_INFO, struct.pack(">HQH", 0, size, FLAGS))
            opt_reply(conn, opt, REP_ACK)
            return structured
        elif opt == OPT_EXPORT_NAME:
            conn.sendall(struct.pack(">QH", size, FLAGS))
            return structured
        elif opt == OPT_ABORT:
            opt_reply(conn, opt, REP_ACK)
            raise EOFError
        else:
            opt_reply(conn, opt, ERR_UNSUP)


def chunk(conn, flags, ctype, cookie, payload):
    conn.sendall(struct.pack(">IHHQI", STRUCT_MAGIC, flags, ctype, cookie,
                             len(payload)) + payload)


def data_chunk(conn, cookie, off, n, done=False):
    chunk(conn, 1 if done else 0, T_DATA, cookie,
          struct.pack(">Q", off) + pattern(off, n))


def simple(conn, cookie, error=0, data=b""):
    conn.sendall(struct.pack(">IIQ", SIMPLE_MAGIC, error, cookie) + data)


def answer_read(conn, scenario, structured, req, count):
    cookie, off, n = req
    half = n // 2
    if scenario == "eio":
        simple(conn, cookie, 5)
    elif not structured:
        simple(conn, cookie, 0, pattern(off, n))
    elif scenario == "reorder":
        data_chunk(conn, cookie, off + half, n - half)
        data_chunk(conn, cookie, off, half)
        chunk(conn, 1, T_NONE, cookie, b"")
    elif scenario == "holes" and count % 2 == 1:
        chunk(conn, 1, T_HOLE, cookie, struct.pack(">QI", off, n))
    elif scenario == "error-chunk":
        msg = b"disk on fire"
        chunk(conn, 1, T_ERROR, cookie, struct.pack(">IH", 5, len(msg)) + msg)
    elif scenario == "oversize":
        data_chunk(conn, cookie, off, n + 100, True)
    elif scenario == "bad-offset":
        data_chunk(conn, cookie, off - 1 if off else off + n, n, True)
    elif scenario == "overlap":
        data_chunk(conn, cookie, off, n)
        data_chunk(conn, cookie, off, n, True)
    elif scenario == "short":
        data_chunk(conn, cookie, off, half, True)
    elif scenario == "bad-cookie":
        data_chunk(conn, cookie ^ 0x5A5A0000, off, n, True)
    elif scenario == "bad-magic":
        conn.sendall(struct.pack(">IIQ", 0x12345678, 0, cookie))
    elif scenario == "huge-error":
        conn.sendall(struct.pack(">IHHQI", STRUCT_MAGIC, 1, T_ERROR, cookie,
                                 1 << 31) + struct.pack(">IH", 5, 0))
    elif scenario == "cut":
        conn.sendall(struct.pack(">IHHQIQ", STRUCT_MAGIC, 1, T_DATA, cookie,
                                 n + 8, off) + pattern(off, half))
        raise EOFError
    else:
        data_chunk(conn, cookie, off, n, True)


def read_request(conn):
    magic, _, ctype, cookie, off, n = struct.unpack(">IHHQQI",
                                                    recv_exact(conn, 28))
    if magic != REQ_MAGIC:
        raise EOFError
    return ctype, cookie, off, n


def pending(conn):
    return select.select([conn], [], [], 0.2)[0]


def transmit(conn, scenario, structured):
    count = 0
    while True:
        ctype, cookie, off, n = read_request(conn)
        if ctype == CMD_DISC:
            return
        if ctype == CMD_WRITE:
            recv_exact(conn, n)
        if ctype != CMD_READ:
            simple(conn, cookie)
            continue
        reqs = [(cookie, off, n)]
        if scenario == "reorder" and pending(conn):
            ctype2, cookie2, off2, n2 = read_request(conn)
            if ctype2 != CMD_READ:
                raise EOFError
            reqs.insert(0, (cookie2, off2, n2))
        for req in reqs:
            answer_read(conn, scenario, structured, req, count)
            count += 1


def main():
    path, scenario = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 8 << 20
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    srv.listen(8)
    os.rename(path + ".tmp", path)  # appears only once listening
    while True:
        conn, _ = srv.accept()
        try:
            transmit(conn, scenario, negotiate(conn, scenario, size))
        except (EOFError, ConnectionError):
            pass
        conn.close()


if __name__ == "__main__":
    main()
