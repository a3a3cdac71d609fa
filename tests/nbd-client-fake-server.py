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
  error-controls  the same, the message full of control characters
  refuse-controls  answers NBD_OPT_GO with ERR_UNKNOWN and a message full
               of control characters
  oversize     a data chunk longer than the request
  bad-offset   a data chunk starting before the request
  overlap      the same data chunk twice, then DONE
  short        DONE after half the data
  bad-cookie   a reply whose cookie was never sent
  bad-magic    a reply with a wrong magic
  huge-error   an error chunk claiming 2 GiB of payload
  cut          half a reply's data, then the connection closes
  status-good  offers base:allocation (context id 7): all data
  status-zero-length   a block status descriptor of length 0
  status-past-request  a second descriptor after one covering the request
  status-wrong-context block status for context 99
  status-simple        a simple reply (success) to a block status
  status-bad-length    a block status chunk of 11 bytes

With FAKE_SERVER_LOG=FILE, the end of each connection is appended to
FILE as one line: "disc eof" (NBD_CMD_DISC, then a clean close),
"disc reset" (DISC, then the client closed with replies unread), "eof"
or "reset" (no DISC at all).

Protocol numbers come from nbd/nbd-protocol.h through nbdproto.py.
"""
import os
import select
import socket
import struct
import sys

import nbdproto as nbd
from nbdproto import recv_exact

FLAGS = nbd.NBD_FLAG_HAS_FLAGS | nbd.NBD_FLAG_SEND_FLUSH | nbd.NBD_FLAG_CAN_MULTI_CONN
DONE = nbd.NBD_REPLY_FLAG_DONE
T_NONE, T_DATA = nbd.NBD_REPLY_TYPE_NONE, nbd.NBD_REPLY_TYPE_OFFSET_DATA
T_HOLE, T_ERROR = nbd.NBD_REPLY_TYPE_OFFSET_HOLE, nbd.NBD_REPLY_TYPE_ERROR

PERIOD = bytes(1 + i % 251 for i in range(251))
CONTEXT_ID = 7


def pattern(off, n):
    start = off % 251
    reps = (start + n) // 251 + 1
    return (PERIOD * reps)[start:start + n]


def opt_reply(conn, opt, rtype, data=b""):
    conn.sendall(nbd.OPTION_REPLY.pack(nbd.NBD_REP_MAGIC, opt, rtype, len(data)) + data)


def negotiate(conn, scenario, size):
    """Returns True to go on to transmission, with structured or not."""
    conn.sendall(nbd.GREETING.pack(nbd.NBD_MAGIC, nbd.NBD_IHAVEOPT,
                                   nbd.NBD_FLAG_FIXED_NEWSTYLE | nbd.NBD_FLAG_NO_ZEROES))
    recv_exact(conn, 4)  # client flags
    structured = False
    while True:
        _, opt, length = nbd.OPTION.unpack(recv_exact(conn, nbd.OPTION.size))
        data = recv_exact(conn, length)
        if opt == nbd.NBD_OPT_STRUCTURED_REPLY and scenario != "simple":
            structured = True
            opt_reply(conn, opt, nbd.NBD_REP_ACK)
        elif (opt == nbd.NBD_OPT_SET_META_CONTEXT and structured
              and scenario.startswith("status-")):
            name = b"base:allocation"
            opt_reply(conn, opt, nbd.NBD_REP_META_CONTEXT,
                      struct.pack(">I", CONTEXT_ID) + name)
            opt_reply(conn, opt, nbd.NBD_REP_ACK)
        elif opt == nbd.NBD_OPT_GO and scenario == "refuse-controls":
            opt_reply(conn, opt, nbd.NBD_REP_ERR_UNKNOWN,
                      b"no\nsbnbd-client: forged\x1b[2J\x00")
        elif opt == nbd.NBD_OPT_GO and scenario != "no-go":
            opt_reply(conn, opt, nbd.NBD_REP_INFO,
                      struct.pack(">HQH", nbd.NBD_INFO_EXPORT, size, FLAGS))
            opt_reply(conn, opt, nbd.NBD_REP_ACK)
            return structured
        elif opt == nbd.NBD_OPT_EXPORT_NAME:
            conn.sendall(struct.pack(">QH", size, FLAGS))
            return structured
        elif opt == nbd.NBD_OPT_ABORT:
            opt_reply(conn, opt, nbd.NBD_REP_ACK)
            raise EOFError
        else:
            opt_reply(conn, opt, nbd.NBD_REP_ERR_UNSUP)


def chunk(conn, flags, ctype, cookie, payload):
    conn.sendall(nbd.STRUCTURED_REPLY.pack(nbd.NBD_STRUCTURED_REPLY_MAGIC, flags,
                                           ctype, cookie, len(payload)) + payload)


def data_chunk(conn, cookie, off, n, done=False):
    chunk(conn, DONE if done else 0, T_DATA, cookie,
          struct.pack(">Q", off) + pattern(off, n))


def simple(conn, cookie, error=0, data=b""):
    conn.sendall(nbd.SIMPLE_REPLY.pack(nbd.NBD_SIMPLE_REPLY_MAGIC, error, cookie) + data)


def answer_read(conn, scenario, structured, req, count):
    cookie, off, n = req
    half = n // 2
    if scenario == "eio":
        simple(conn, cookie, nbd.NBD_EIO)
    elif not structured:
        simple(conn, cookie, 0, pattern(off, n))
    elif scenario == "reorder":
        data_chunk(conn, cookie, off + half, n - half)
        data_chunk(conn, cookie, off, half)
        chunk(conn, DONE, T_NONE, cookie, b"")
    elif scenario == "holes" and count % 2 == 1:
        chunk(conn, DONE, T_HOLE, cookie, struct.pack(">QI", off, n))
    elif scenario in ("error-chunk", "error-controls"):
        msg = b"disk on fire"
        if scenario == "error-controls":
            msg = b"disk\non fire\r\x1b[2J\x00\xff\\"
        chunk(conn, DONE, T_ERROR, cookie,
              struct.pack(">IH", nbd.NBD_EIO, len(msg)) + msg)
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
        conn.sendall(nbd.SIMPLE_REPLY.pack(0x12345678, 0, cookie))
    elif scenario == "huge-error":
        conn.sendall(nbd.STRUCTURED_REPLY.pack(nbd.NBD_STRUCTURED_REPLY_MAGIC, DONE,
                                               T_ERROR, cookie, 1 << 31)
                     + struct.pack(">IH", nbd.NBD_EIO, 0))
    elif scenario == "cut":
        conn.sendall(nbd.STRUCTURED_REPLY.pack(nbd.NBD_STRUCTURED_REPLY_MAGIC, DONE,
                                               T_DATA, cookie, n + 8)
                     + struct.pack(">Q", off) + pattern(off, half))
        raise EOFError
    else:
        data_chunk(conn, cookie, off, n, True)


def answer_status(conn, scenario, cookie, n):
    """A block status reply to a request for N bytes, as SCENARIO says."""
    T_STATUS = nbd.NBD_REPLY_TYPE_BLOCK_STATUS
    ctx, descs = CONTEXT_ID, [(n, 0)]
    if scenario == "status-simple":
        simple(conn, cookie)
        return
    if scenario == "status-bad-length":
        chunk(conn, DONE, T_STATUS, cookie, struct.pack(">I", ctx) + bytes(7))
        return
    if scenario == "status-zero-length":
        descs = [(0, 0)]
    elif scenario == "status-past-request":
        descs = [(n, 0), (4096, nbd.NBD_STATE_HOLE)]
    elif scenario == "status-wrong-context":
        ctx = 99
    chunk(conn, DONE, T_STATUS, cookie, struct.pack(">I", ctx)
          + b"".join(struct.pack(">II", ln, fl) for ln, fl in descs))


def read_request(conn):
    magic, _, ctype, cookie, off, n = nbd.REQUEST.unpack(
        recv_exact(conn, nbd.REQUEST.size))
    if magic != nbd.NBD_REQUEST_MAGIC:
        raise EOFError
    return ctype, cookie, off, n


def pending(conn):
    return select.select([conn], [], [], 0.2)[0]


def transmit(conn, scenario, structured):
    count = 0
    while True:
        ctype, cookie, off, n = read_request(conn)
        if ctype == nbd.NBD_CMD_DISC:
            return
        if ctype == nbd.NBD_CMD_WRITE:
            recv_exact(conn, n)
        if ctype == nbd.NBD_CMD_BLOCK_STATUS:
            answer_status(conn, scenario, cookie, n)
            continue
        if ctype != nbd.NBD_CMD_READ:
            simple(conn, cookie)
            continue
        reqs = [(cookie, off, n)]
        if scenario == "reorder" and pending(conn):
            ctype2, cookie2, off2, n2 = read_request(conn)
            if ctype2 != nbd.NBD_CMD_READ:
                raise EOFError
            reqs.insert(0, (cookie2, off2, n2))
        for req in reqs:
            answer_read(conn, scenario, structured, req, count)
            count += 1


def how_it_ended(conn, scenario, size):
    """Serve one connection; say how the client left it."""
    try:
        transmit(conn, scenario, negotiate(conn, scenario, size))
    except EOFError:
        return "eof"
    except ConnectionError:
        return "reset"
    try:
        return "disc eof" if conn.recv(1) == b"" else "disc data"
    except ConnectionError:
        return "disc reset"


def main():
    path, scenario = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 8 << 20
    log = os.environ.get("FAKE_SERVER_LOG")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    srv.listen(8)
    os.rename(path + ".tmp", path)  # appears only once listening
    while True:
        conn, _ = srv.accept()
        ended = how_it_ended(conn, scenario, size)
        conn.close()
        if log:
            with open(log, "a") as f:
                f.write(ended + "\n")


if __name__ == "__main__":
    main()
