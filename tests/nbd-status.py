#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Raw NBD traffic about metadata contexts, block status, sparse reads and
# extended headers, to check a server's answers to the letter.
#   nbd-status.py SOCKET SCENARIO[-extended]
# exits 0 if the server answered as the protocol says, 1 with a message
# if not.  A -extended suffix runs the scenario over extended headers.
# The connection helpers are nbd-raw.py's; protocol numbers come from
# nbd/nbd-protocol.h through nbdproto.py.
import importlib.util
import os
import struct
import sys

import nbdproto as nbd

_spec = importlib.util.spec_from_file_location(
    "nbdraw", os.path.join(os.path.dirname(os.path.abspath(__file__)), "nbd-raw.py"))
raw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(raw)
Conn, Failure, expect = raw.Conn, raw.Failure, raw.expect

ALLOC = b"base:allocation"
HOLE_ZERO = nbd.NBD_STATE_HOLE | nbd.NBD_STATE_ZERO
DATA = 0
K, M, G = 1 << 10, 1 << 20, 1 << 30


def meta_data(queries, name=b""):
    return (struct.pack(">I", len(name)) + name + struct.pack(">I", len(queries))
            + b"".join(struct.pack(">I", len(q)) + q for q in queries))


def contexts(c, opt, data):
    """Send a meta context option: (final reply type, [(id, name)])."""
    c.option(opt, data)
    found = []
    while True:
        rtype, body = c.opt_reply(opt)
        if rtype != nbd.NBD_REP_META_CONTEXT:
            return rtype, found
        found.append((struct.unpack(">I", body[:4])[0], body[4:]))


def expect_contexts(c, opt, data, want_type, want, what):
    rtype, found = contexts(c, opt, data)
    expect(rtype == want_type and [n for _, n in found] == want,
           "%s: reply %#x contexts %r, want %#x %r" % (what, rtype, found,
                                                      want_type, want))
    return found


def connect(path, extended, select=True):
    """A session with reply chunks and (if SELECT) base:allocation."""
    c = Conn(path)
    c.greeting()
    if extended:
        c.option(nbd.NBD_OPT_EXTENDED_HEADERS)
        c.expect_reply(nbd.NBD_OPT_EXTENDED_HEADERS, nbd.NBD_REP_ACK)
    else:
        c.option(nbd.NBD_OPT_STRUCTURED_REPLY)
        c.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ACK)
    if select:
        expect_contexts(c, nbd.NBD_OPT_SET_META_CONTEXT, meta_data([ALLOC]),
                        nbd.NBD_REP_ACK, [ALLOC], "SET base:allocation")
    size = c.go(extended=extended, structured=not extended)
    expect(c.eflags & nbd.NBD_FLAG_SEND_DF, "DF not offered with reply chunks")
    return c, size


def status(c, off, length, flags=0):
    """The extents (length, flags) of a block status, or the error."""
    err, _ = c.reply(c.request(nbd.NBD_CMD_BLOCK_STATUS, off, length, flags))
    return err if err else [tuple(e) for e in c.extents]


def expect_status(c, off, length, want, flags=0):
    got = status(c, off, length, flags)
    expect(got == want, "block status %d+%d flags %#x: %r, want %r"
           % (off, length, flags, got, want))


def read(c, off, length, flags=0):
    """(data, pieces) of a READ that must succeed."""
    err, data = c.reply(c.request(nbd.NBD_CMD_READ, off, length, flags), length)
    expect(err == 0, "read %d+%d: error %d" % (off, length, err))
    return data, c.pieces


def expect_error(c, cmd, off, length, want, what, flags=0, payload=b""):
    c.expect_error(c.request(cmd, off, length, flags, payload), want, what)


# ---- scenarios: negotiation ----

def meta_list(path, extended=False):
    """LIST works before reply chunks too; unknown queries select nothing."""
    c = Conn(path)
    c.greeting()
    LIST, ACK = nbd.NBD_OPT_LIST_META_CONTEXT, nbd.NBD_REP_ACK
    found = expect_contexts(c, LIST, meta_data([]), ACK, [ALLOC], "LIST all")
    expect(found[0][0] == 0, "LIST gave context id %d, not 0" % found[0][0])
    expect_contexts(c, LIST, meta_data([b"base:"]), ACK, [ALLOC], "LIST base:")
    expect_contexts(c, LIST, meta_data([ALLOC, b"base:", ALLOC]), ACK, [ALLOC],
                    "LIST base:allocation twice and base:")
    expect_contexts(c, LIST, meta_data([b"x-foo:bar", b"base:nope", b"nocolon",
                                        b"", b"qemu:dirty-bitmap:a",
                                        b"base:allocationX", b"x" * 3000]),
                    ACK, [], "LIST of unknown namespaces and contexts")
    expect_contexts(c, LIST, meta_data([ALLOC], b"nope"),
                    nbd.NBD_REP_ERR_UNKNOWN, [], "LIST for an unknown export")
    good = meta_data([ALLOC])
    for bad, what in ((good[:-1], "query cut short"), (good + b"x", "trailing byte"),
                      (struct.pack(">II", 0, 2) + good[8:], "count past the data"),
                      (struct.pack(">I", 100) + good[4:], "name past the data"),
                      (b"\0\0", "too short"), (struct.pack(">I", 4097) + bytes(4101),
                                               "name over 4096 bytes")):
        expect_contexts(c, LIST, bad, nbd.NBD_REP_ERR_INVALID, [], "LIST " + what)
    many = meta_data([ALLOC] * 2000)
    expect_contexts(c, LIST, many, nbd.NBD_REP_ERR_TOO_BIG, [],
                    "LIST of %d bytes" % len(many))
    expect(c.go() > 0, "GO after the LISTs")
    c.read_ok()


def meta_set(path, extended=False):
    c = Conn(path)
    c.greeting()
    SET, ACK = nbd.NBD_OPT_SET_META_CONTEXT, nbd.NBD_REP_ACK
    expect_contexts(c, SET, meta_data([ALLOC]), nbd.NBD_REP_ERR_INVALID, [],
                    "SET before reply chunks")
    opt = nbd.NBD_OPT_EXTENDED_HEADERS if extended else nbd.NBD_OPT_STRUCTURED_REPLY
    c.option(opt)
    c.expect_reply(opt, ACK)
    expect_contexts(c, SET, meta_data([]), ACK, [], "SET of nothing")
    expect_contexts(c, SET, meta_data([b"base:"]), ACK, [], "SET base:")
    found = expect_contexts(c, SET, meta_data([b"x-a:b", ALLOC, ALLOC, b"base:x"]),
                            ACK, [ALLOC], "SET base:allocation among others")
    expect(found[0][0] != 0, "SET gave id 0")
    expect_contexts(c, SET, meta_data([ALLOC], b"nope"), nbd.NBD_REP_ERR_UNKNOWN,
                    [], "SET for an unknown export")
    c.go(extended=extended, structured=not extended)
    # The failed SET replaced the selection: nothing is selected.
    expect_error(c, nbd.NBD_CMD_BLOCK_STATUS, 0, 4096, nbd.NBD_EINVAL,
                 "block status after a failed SET")
    c.read_ok()


def query_before_go(path, extended=False):
    """A block status request in the middle of option haggling."""
    c = Conn(path)
    c.greeting()
    c.option(nbd.NBD_OPT_STRUCTURED_REPLY)
    c.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ACK)
    expect_contexts(c, nbd.NBD_OPT_SET_META_CONTEXT, meta_data([ALLOC]),
                    nbd.NBD_REP_ACK, [ALLOC], "SET")
    c.s.sendall(nbd.REQUEST.pack(nbd.NBD_REQUEST_MAGIC, 0, nbd.NBD_CMD_BLOCK_STATUS,
                                 1, 0, 4096))
    expect(c.closed_by_server(), "server answered a request before GO")


# ---- scenarios: block status and reads per backend ----

def status_bounds(c, size):
    BS, EINVAL = nbd.NBD_CMD_BLOCK_STATUS, nbd.NBD_EINVAL
    for off, length, what in ((0, 0, "zero length"), (size, 1, "at the end"),
                              (size - 4096, 8192, "crossing the end"),
                              (2**64 - 4096, 8192, "offset overflow")):
        expect_error(c, BS, off, length, EINVAL, "block status " + what)
        c.read_ok()
    expect_error(c, BS, 0, size + 1, EINVAL, "block status longer than the export")
    if c.extended:
        expect_error(c, BS, 0, 2**64 - 1, EINVAL, "block status of 2^64-1 bytes")
    expect_error(c, BS, 0, 4096, EINVAL, "block status with DF",
                 flags=nbd.NBD_CMD_FLAG_DF)


def block_status_memory(path, extended=False):
    c, size = connect(path, extended)
    expect(size == 64 * M, "memory:64M export of %d bytes" % size)
    expect_status(c, 0, size, [(size, HOLE_ZERO)])
    c.reply(c.request(nbd.NBD_CMD_WRITE, M, 4096, 0, b"\x11" * 4096))
    c.reply(c.request(nbd.NBD_CMD_WRITE, 8 * M + 10, 100, 0, b"\x22" * 100))
    want = [(M, HOLE_ZERO), (4096, DATA), (7 * M - 4096, HOLE_ZERO),
            (4096, DATA), (56 * M - 4096, HOLE_ZERO)]
    expect_status(c, 0, size, want)
    REQ_ONE = nbd.NBD_CMD_FLAG_REQ_ONE
    expect_status(c, 0, size, [(M, HOLE_ZERO)], REQ_ONE)
    expect_status(c, M, 2 * M, [(4096, DATA)], REQ_ONE)
    expect_status(c, M + 100, 10, [(10, DATA)])
    expect_status(c, M - 10, 20, [(10, HOLE_ZERO), (10, DATA)])
    data, pieces = read(c, M - 8192, 16384)
    expect(pieces == [("hole", 0, 8192), ("data", 8192, 4096), ("hole", 12288, 4096)],
           "sparse read pieces %r" % pieces)
    expect(data == bytes(8192) + b"\x11" * 4096 + bytes(4096), "sparse read data")
    data, pieces = read(c, M - 8192, 16384, nbd.NBD_CMD_FLAG_DF)
    expect(pieces == [("data", 0, 16384)], "DF read pieces %r" % pieces)
    expect(data == bytes(8192) + b"\x11" * 4096 + bytes(4096), "DF read data")
    c.reply(c.request(nbd.NBD_CMD_TRIM, M, 4096))
    expect_status(c, 0, 8 * M, [(8 * M, HOLE_ZERO)])
    c.reply(c.request(nbd.NBD_CMD_WRITE_ZEROES, 8 * M, 4096))
    expect_status(c, 0, size, [(size, HOLE_ZERO)])
    status_bounds(c, size)


def block_status_null(path, extended=False):
    c, size = connect(path, extended)
    expect_status(c, 0, size, [(size, HOLE_ZERO)])
    expect_status(c, 5, 7, [(7, HOLE_ZERO)])
    expect_status(c, 0, size, [(size, HOLE_ZERO)], nbd.NBD_CMD_FLAG_REQ_ONE)
    data, pieces = read(c, 12345, M)
    expect(pieces == [("hole", 0, M)] and data == bytes(M), "null read %r" % pieces)
    status_bounds(c, size)


def block_status_pattern(path, extended=False):
    c, size = connect(path, extended)
    expect_status(c, 0, size, [(size, DATA)])
    expect_status(c, 5, 7, [(7, DATA)])
    data, pieces = read(c, 12345, M)
    expect(pieces == [("data", 0, M)] and any(data), "pattern read %r" % pieces)
    status_bounds(c, size)


def block_status_file(path, extended=False):
    """The file nbd-server-block-status.bats makes: 8 MiB, data at
    [1M, 1M+64K) and [3M, 3M+4K), holes elsewhere."""
    c, size = connect(path, extended)
    expect(size == 8 * M, "file of %d bytes" % size)
    expect_status(c, 0, size, [(M, HOLE_ZERO), (64 * K, DATA),
                               (2 * M - 64 * K, HOLE_ZERO), (4 * K, DATA),
                               (5 * M - 4 * K, HOLE_ZERO)])
    expect_status(c, M + 4096, 4096, [(4096, DATA)])
    expect_status(c, 2 * M, M, [(M, HOLE_ZERO)])
    data, pieces = read(c, M - 4096, 72 * K)
    expect(pieces == [("hole", 0, 4096), ("data", 4096, 64 * K), ("hole", 68 * K, 4096)],
           "file read pieces %r" % pieces)
    expect(data[4096:4096 + 64 * K] == b"\x5a" * 64 * K and not any(data[:4096]),
           "file read data")
    status_bounds(c, size)


def block_status_file_trim(path, extended=False):
    """The same file, writable: a data range the server remembers (to
    spare its lseek calls) is forgotten when a trim punches a hole in it."""
    c, size = connect(path, extended)
    expect_status(c, M, 64 * K, [(64 * K, DATA)])
    expect_status(c, M + 4096, 4096, [(4096, DATA)])
    c.reply(c.request(nbd.NBD_CMD_TRIM, M, 64 * K))
    expect_status(c, 0, 2 * M, [(2 * M, HOLE_ZERO)])
    data, pieces = read(c, M, 4096)
    expect(pieces == [("hole", 0, 4096)] and not any(data),
           "read of the trimmed range %r" % pieces)
    expect_status(c, 3 * M, 4096, [(4096, DATA)])


# ---- scenarios: extended headers ----

def extended_negotiation(path, extended=True):
    """STRUCTURED_REPLY after EXTENDED_HEADERS is refused; EXPORT_NAME
    after it ends the session (it cannot carry an error)."""
    c = Conn(path)
    c.greeting()
    c.option(nbd.NBD_OPT_EXTENDED_HEADERS, b"x")
    c.expect_reply(nbd.NBD_OPT_EXTENDED_HEADERS, nbd.NBD_REP_ERR_INVALID)
    c.option(nbd.NBD_OPT_STRUCTURED_REPLY)
    c.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ACK)
    c.option(nbd.NBD_OPT_EXTENDED_HEADERS)
    c.expect_reply(nbd.NBD_OPT_EXTENDED_HEADERS, nbd.NBD_REP_ACK)
    c.option(nbd.NBD_OPT_STRUCTURED_REPLY)
    c.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ERR_EXT_HEADER_REQD)
    c.option(nbd.NBD_OPT_EXPORT_NAME)
    expect(c.closed_by_server(), "EXPORT_NAME accepted after extended headers")


def extended_requests(path, extended=True):
    """64-bit effect lengths, payload rules, NONE chunks for success."""
    c, size = connect(path, True)
    expect(size == 8 * G, "null:8G export of %d bytes" % size)
    expect_status(c, 0, 6 * G, [(6 * G, HOLE_ZERO)])
    expect_status(c, G, size - G, [(size - G, HOLE_ZERO)])
    for cmd in (nbd.NBD_CMD_TRIM, nbd.NBD_CMD_WRITE_ZEROES):
        err, _ = c.reply(c.request(cmd, 0, 5 * G))
        expect(err == 0, "5 GiB command %d: error %d" % (cmd, err))
    err, _ = c.reply(c.request(nbd.NBD_CMD_FLUSH, 0, 0))
    expect(err == 0, "flush: error %d" % err)
    PAYLOAD = nbd.NBD_CMD_FLAG_PAYLOAD_LEN
    # A WRITE without PAYLOAD_LEN (as QEMU sends them) still has its data.
    c.cookie += 1
    c.sent[c.cookie] = (nbd.NBD_CMD_WRITE, 0, 512)
    c.s.sendall(nbd.REQUEST_EXT.pack(nbd.NBD_EXTENDED_REQUEST_MAGIC, 0,
                                     nbd.NBD_CMD_WRITE, c.cookie, 0, 512)
                + b"\x21" * 512)
    c.expect_error(c.cookie, 0, "WRITE without PAYLOAD_LEN")
    c.read_ok()
    # Payloads on commands that take none are eaten, then refused.
    for cmd in (nbd.NBD_CMD_READ, nbd.NBD_CMD_BLOCK_STATUS, nbd.NBD_CMD_FLUSH):
        expect_error(c, cmd, 0, 4096, nbd.NBD_EINVAL, "command %d with a payload" % cmd,
                     PAYLOAD, b"\x33" * 4096)
        c.read_ok()
    expect_error(c, nbd.NBD_CMD_READ, 0, 64 * M, nbd.NBD_EINVAL, "64 MiB read")
    err, _ = c.reply(c.request(nbd.NBD_CMD_WRITE, 7 * G, 4096, 0, b"\x44" * 4096))
    expect(err == 0, "write at 7 GiB: error %d" % err)
    # A payload past the maximum is a reason to hang up.
    c.cookie += 1
    c.s.sendall(nbd.REQUEST_EXT.pack(nbd.NBD_EXTENDED_REQUEST_MAGIC, PAYLOAD,
                                     nbd.NBD_CMD_WRITE, c.cookie, 0, 1 << 40))
    expect(c.closed_by_server(), "server waited for a 1 TiB payload")


def main():
    path, name = sys.argv[1], sys.argv[2]
    extended = name.endswith("-extended")
    scenario = globals()[(name[:-len("-extended")] if extended else name)
                         .replace("-", "_")]
    try:
        scenario(path, extended)
    except (Failure, OSError) as e:
        print("nbd-status.py %s: %s" % (name, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
