#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Raw NBD traffic, well-formed or not, to check a server's answers.
#   nbd-raw.py SOCKET SCENARIO      exits 0 if the server answered as the
#                                   protocol says, 1 with a message if not
# Protocol numbers come from nbd/nbd-protocol.h through nbdproto.py.
import socket
import struct
import sys

import nbdproto as nbd

TIMEOUT = 20
# What the server sends and the client answers: fixed newstyle, no zeroes.
HANDSHAKE_FLAGS = nbd.NBD_FLAG_FIXED_NEWSTYLE | nbd.NBD_FLAG_NO_ZEROES


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(TIMEOUT)
        self.s.connect(path)
        self.cookie = 0
        self.sent = {}
        self.structured = self.extended = False

    def recv(self, n):
        try:
            return nbd.recv_exact(self.s, n)
        except EOFError as e:
            raise Failure("server closed the connection after %d of %d bytes" % e.args)

    def closed_by_server(self):
        """True if the server closes the connection (EOF or reset)."""
        try:
            while True:
                if not self.s.recv(65536):
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def greeting(self, flags=HANDSHAKE_FLAGS):
        magic, ihaveopt, gflags = nbd.GREETING.unpack(self.recv(nbd.GREETING.size))
        expect(magic == nbd.NBD_MAGIC and ihaveopt == nbd.NBD_IHAVEOPT, "bad greeting")
        expect(gflags == HANDSHAKE_FLAGS,
               "handshake flags %#x, want FIXED_NEWSTYLE|NO_ZEROES" % gflags)
        self.s.sendall(struct.pack(">I", flags))

    def option(self, opt, data=b"", length=None):
        length = len(data) if length is None else length
        self.s.sendall(nbd.OPTION.pack(nbd.NBD_IHAVEOPT, opt, length) + data)

    def opt_reply(self, opt):
        magic, ropt, rtype, rlen = nbd.OPTION_REPLY.unpack(
            self.recv(nbd.OPTION_REPLY.size))
        expect(magic == nbd.NBD_REP_MAGIC, "bad option reply magic %#x" % magic)
        expect(ropt == opt, "reply for option %d, want %d" % (ropt, opt))
        return rtype, self.recv(rlen)

    def expect_reply(self, opt, want):
        rtype, _ = self.opt_reply(opt)
        expect(rtype == want, "option %d: reply %#x, want %#x" % (opt, rtype, want))

    def go(self, name=b"", structured=False, extended=False):
        if extended:
            self.option(nbd.NBD_OPT_EXTENDED_HEADERS)
            self.expect_reply(nbd.NBD_OPT_EXTENDED_HEADERS, nbd.NBD_REP_ACK)
        elif structured:
            self.option(nbd.NBD_OPT_STRUCTURED_REPLY)
            self.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ACK)
        self.option(nbd.NBD_OPT_GO,
                    struct.pack(">I", len(name)) + name + struct.pack(">H", 0))
        size = None
        while True:
            rtype, data = self.opt_reply(nbd.NBD_OPT_GO)
            if rtype == nbd.NBD_REP_ACK:
                break
            expect(rtype == nbd.NBD_REP_INFO, "GO: reply %#x" % rtype)
            if struct.unpack(">H", data[:2])[0] == nbd.NBD_INFO_EXPORT:
                size, self.eflags = struct.unpack(">QH", data[2:])
        expect(size is not None, "GO: no NBD_INFO_EXPORT")
        self.structured = structured or extended
        self.extended = extended
        return size

    def request(self, cmd, offset, length, flags=0, payload=b""):
        """Send a request; a WRITE in extended mode says PAYLOAD_LEN."""
        self.cookie += 1
        if self.extended:
            if cmd == nbd.NBD_CMD_WRITE:
                flags |= nbd.NBD_CMD_FLAG_PAYLOAD_LEN
            head = nbd.REQUEST_EXT.pack(nbd.NBD_EXTENDED_REQUEST_MAGIC, flags,
                                        cmd, self.cookie, offset, length)
        else:
            head = nbd.REQUEST.pack(nbd.NBD_REQUEST_MAGIC, flags, cmd,
                                    self.cookie, offset, length)
        self.sent[self.cookie] = (cmd, offset, length)
        self.s.sendall(head + payload)
        return self.cookie

    def chunk_header(self, head):
        """(flags, type, cookie, length) of the chunk whose magic is HEAD."""
        magic = struct.unpack(">I", head)[0]
        if self.extended:
            expect(magic == nbd.NBD_EXTENDED_REPLY_MAGIC,
                   "extended headers, reply magic %#x" % magic)
            _, flags, rtype, c, off, length = nbd.EXTENDED_REPLY.unpack(
                head + self.recv(nbd.EXTENDED_REPLY.size - 4))
            expect(c in self.sent and off == self.sent[c][1],
                   "extended reply offset %d, request's %s" % (off, self.sent.get(c)))
            return flags, rtype, c, length
        expect(magic == nbd.NBD_STRUCTURED_REPLY_MAGIC, "bad reply magic %#x" % magic)
        _, flags, rtype, c, length = nbd.STRUCTURED_REPLY.unpack(
            head + self.recv(nbd.STRUCTURED_REPLY.size - 4))
        return flags, rtype, c, length

    def reply(self, cookie, data_len=0):
        """(error, data) of the reply to COOKIE: a READ's chunks put
        together (holes read as zeroes; the pieces seen go to
        self.pieces), a block status's extents in self.extents."""
        head = self.recv(4)  # the magic says which reply it is
        if struct.unpack(">I", head)[0] == nbd.NBD_SIMPLE_REPLY_MAGIC:
            expect(not self.extended, "simple reply with extended headers")
            _, err, c = nbd.SIMPLE_REPLY.unpack(
                head + self.recv(nbd.SIMPLE_REPLY.size - len(head)))
            expect(c == cookie, "cookie %d, want %d" % (c, cookie))
            return err, self.recv(data_len) if err == 0 else b""
        data, err = bytearray(data_len), 0
        self.pieces, self.extents = [], []
        while True:
            flags, rtype, c, length = self.chunk_header(head)
            expect(c == cookie, "cookie %d, want %d" % (c, cookie))
            err = self.chunk_body(c, rtype, self.recv(length), data) or err
            if flags & nbd.NBD_REPLY_FLAG_DONE:
                return err, bytes(data)
            head = self.recv(4)

    def chunk_body(self, cookie, rtype, body, data):
        """Apply one chunk of the reply to COOKIE; its error, or 0."""
        base = self.sent[cookie][1]
        if rtype == nbd.NBD_REPLY_TYPE_OFFSET_DATA:
            off = struct.unpack(">Q", body[:8])[0] - base
            expect(0 <= off and off + len(body) - 8 <= len(data), "data chunk outside")
            data[off:off + len(body) - 8] = body[8:]
            self.pieces.append(("data", off, len(body) - 8))
        elif rtype == nbd.NBD_REPLY_TYPE_OFFSET_HOLE:
            expect(len(body) == 12, "hole chunk of %d bytes" % len(body))
            off, n = struct.unpack(">QI", body)
            expect(0 <= off - base and off - base + n <= len(data), "hole outside")
            self.pieces.append(("hole", off - base, n))
        elif rtype == nbd.NBD_REPLY_TYPE_BLOCK_STATUS:
            expect(not self.extended and (len(body) - 4) % 8 == 0 and len(body) > 4,
                   "BLOCK_STATUS chunk of %d bytes" % len(body))
            self.extents = [nbd.DESCRIPTOR_32.unpack_from(body, 4 + 8 * i)
                            for i in range((len(body) - 4) // 8)]
        elif rtype == nbd.NBD_REPLY_TYPE_BLOCK_STATUS_EXT:
            count = struct.unpack(">I", body[4:8])[0]
            expect(self.extended and len(body) == 8 + 16 * count and count > 0,
                   "BLOCK_STATUS_EXT chunk of %d bytes, count %d" % (len(body), count))
            self.extents = [nbd.DESCRIPTOR_EXT.unpack_from(body, 8 + 16 * i)
                            for i in range(count)]
        elif rtype == nbd.NBD_REPLY_TYPE_ERROR:
            return struct.unpack(">I", body[:4])[0]
        else:
            expect(rtype == nbd.NBD_REPLY_TYPE_NONE and not body,
                   "unexpected chunk type %d" % rtype)
        return 0

    def expect_error(self, cookie, want, what):
        err, _ = self.reply(cookie)
        expect(err == want, "%s: error %d, want %d" % (what, err, want))

    def read_ok(self, offset=0, length=4096):
        err, data = self.reply(self.request(nbd.NBD_CMD_READ, offset, length), length)
        expect(err == 0 and len(data) == length, "a plain read after that failed")
        return data


def transmission(path, structured=False):
    c = Conn(path)
    c.greeting()
    size = c.go(structured=structured)
    return c, size


# ---- scenarios: handshake ----

def garbage_after_greeting(path):
    c = Conn(path)
    c.recv(nbd.GREETING.size)
    c.s.sendall(b"\xde\xad\xbe\xef" * 64)
    expect(c.closed_by_server(), "server kept a connection that sent garbage")


def unknown_client_flags(path):
    c = Conn(path)
    c.greeting(flags=(1 << 31) | HANDSHAKE_FLAGS)  # plus an unknown flag
    expect(c.closed_by_server(), "server accepted unknown client flags")


def bad_option_magic(path):
    c = Conn(path)
    c.greeting()
    c.s.sendall(nbd.OPTION.pack(0x1122334455667788, nbd.NBD_OPT_GO, 0))
    expect(c.closed_by_server(), "server accepted a bad option magic")


def unsupported_options(path):
    c = Conn(path)
    c.greeting()
    # 4 is the withdrawn NBD_OPT_PEEK_EXPORT; 99 and 0xFFFFFFFF were never
    # defined.
    for opt in (nbd.NBD_OPT_STARTTLS, 4, 99, 0xFFFFFFFF):
        c.option(opt, b"xyz" if opt == 99 else b"")
        c.expect_reply(opt, nbd.NBD_REP_ERR_UNSUP)
    expect(c.go() > 0, "GO after unsupported options")
    c.read_ok()


def malformed_info(path):
    c = Conn(path)
    c.greeting()
    for data in (b"", b"\0\0", struct.pack(">IH", 100, 0),
                 struct.pack(">I", 0) + struct.pack(">H", 5) + b"\0\0",
                 struct.pack(">I", 1) + b"x" + struct.pack(">H", 0) + b"extra"):
        c.option(nbd.NBD_OPT_INFO, data)
        c.expect_reply(nbd.NBD_OPT_INFO, nbd.NBD_REP_ERR_INVALID)
    c.option(nbd.NBD_OPT_LIST, b"junk")
    c.expect_reply(nbd.NBD_OPT_LIST, nbd.NBD_REP_ERR_INVALID)
    c.option(nbd.NBD_OPT_STRUCTURED_REPLY, b"junk")
    c.expect_reply(nbd.NBD_OPT_STRUCTURED_REPLY, nbd.NBD_REP_ERR_INVALID)
    c.option(nbd.NBD_OPT_GO, struct.pack(">I", 5) + b"wrong" + struct.pack(">H", 0))
    c.expect_reply(nbd.NBD_OPT_GO, nbd.NBD_REP_ERR_UNKNOWN)
    expect(c.go() > 0, "GO after malformed options")


def option_too_long(path):
    c = Conn(path)
    c.greeting()
    # Over the limit but sent in full: drained, refused, stream in step.
    c.option(nbd.NBD_OPT_INFO, b"\0" * 100000)
    c.expect_reply(nbd.NBD_OPT_INFO, nbd.NBD_REP_ERR_TOO_BIG)
    # At the limit: accepted and parsed (an over-long name, so invalid).
    c.option(nbd.NBD_OPT_INFO, b"\0" * 4096)
    c.expect_reply(nbd.NBD_OPT_INFO, nbd.NBD_REP_ERR_INVALID)
    expect(c.go() > 0, "GO after an over-long option")
    c.read_ok()


def export_name_too_long(path):
    c = Conn(path)
    c.greeting()
    c.option(nbd.NBD_OPT_EXPORT_NAME, b"", length=0xFFFFFFFF)
    expect(c.closed_by_server(), "server waited for a 4 GiB export name")


def disconnect_mid_option(path):
    c = Conn(path)
    c.greeting()
    c.option(nbd.NBD_OPT_GO, b"\0\0", length=10)
    c.s.close()


# ---- scenarios: transmission ----

def bad_requests(path, structured):
    c, size = transmission(path, structured)
    READ, TRIM, ZERO = nbd.NBD_CMD_READ, nbd.NBD_CMD_TRIM, nbd.NBD_CMD_WRITE_ZEROES
    EINVAL, ENOSPC = nbd.NBD_EINVAL, nbd.NBD_ENOSPC
    cases = [
        (READ, size - 100, 4096, 0, EINVAL, "read crossing the end"),
        (READ, 2**64 - 1, 2, 0, EINVAL, "read with offset overflow"),
        (READ, 0, 0, 0, EINVAL, "zero-length read"),
        (READ, 0, 64 << 20, 0, EINVAL, "64 MiB read"),
        (READ, 0, 4096, 1 << 7, EINVAL, "read with unknown flag"),
        (TRIM, size, 1, 0, EINVAL, "trim past the end"),
        (ZERO, size - 1, 2, 0, ENOSPC, "zero past the end"),
        (ZERO, 0, 4096, nbd.NBD_CMD_FLAG_REQ_ONE, EINVAL, "zero with REQ_ONE"),
        (nbd.NBD_CMD_CACHE, 0, 4096, 0, EINVAL, "cache (not offered)"),
        (nbd.NBD_CMD_BLOCK_STATUS, 0, 4096, 0, EINVAL, "block status (no context)"),
        (99, 0, 4096, 0, EINVAL, "unknown command 99"),
        (0xFFFF, 0, 0, 0, EINVAL, "unknown command 65535"),
    ]
    for cmd, off, length, flags, want, what in cases:
        c.expect_error(c.request(cmd, off, length, flags), want, what)
        c.read_ok()
    # Writes whose payload must be consumed even though they are refused.
    writes = [
        (size - 10, 4096, 0, ENOSPC, "write past the end"),
        (0, 4096, nbd.NBD_CMD_FLAG_FAST_ZERO, EINVAL, "write with FAST_ZERO"),
        (0, nbd.NBD_MAX_PAYLOAD + 1, 0, EINVAL, "write of 32 MiB + 1"),
        (0, 40 << 20, 0, EINVAL, "write of 40 MiB"),
    ]
    for off, length, flags, want, what in writes:
        c.expect_error(c.request(nbd.NBD_CMD_WRITE, off, length, flags,
                                 b"\x55" * length), want, what)
        c.read_ok()
    c.request(nbd.NBD_CMD_DISC, 0, 0)
    expect(c.closed_by_server(), "server kept the connection after DISC")


def bad_requests_simple(path):
    bad_requests(path, False)


def bad_requests_structured(path):
    bad_requests(path, True)


def write_read_back(path):
    c, size = transmission(path, True)
    data = bytes(range(256)) * 16
    err, _ = c.reply(c.request(nbd.NBD_CMD_WRITE, size - 4096, 4096,
                               nbd.NBD_CMD_FLAG_FUA, data))
    expect(err == 0, "write of the last 4 KiB with FUA: error %d" % err)
    expect(c.read_ok(size - 4096) == data, "read back differs")
    # Trims and zeroes are not payloads: 64 MiB in one request is fine
    # when the export is that large.
    if size >= 64 << 20:
        for cmd in (nbd.NBD_CMD_WRITE_ZEROES, nbd.NBD_CMD_TRIM):
            err, _ = c.reply(c.request(cmd, 0, 64 << 20))
            expect(err == 0, "64 MiB command %d: error %d" % (cmd, err))
        expect(c.read_ok(32 << 20) == bytes(4096), "zeroed range not zero")
    # Pipelined: several requests in one send, replies in order.
    cookies = [c.request(nbd.NBD_CMD_READ, i * 512, 512) for i in range(8)]
    for k in cookies:
        err, _ = c.reply(k, 512)
        expect(err == 0, "pipelined read failed")


def fast_zero_without_zero_range(path):
    """On a file system that can punch holes but not zero ranges."""
    FUA, NO_HOLE = nbd.NBD_CMD_FLAG_FUA, nbd.NBD_CMD_FLAG_NO_HOLE
    FAST, ENOTSUP = nbd.NBD_CMD_FLAG_FAST_ZERO, nbd.NBD_ENOTSUP
    c, size = transmission(path, True)
    data = b"\xab" * 8192
    for flags, want, zeroed in ((FAST | NO_HOLE, ENOTSUP, False),
                                (NO_HOLE, 0, True), (FAST, 0, True),
                                (FAST | FUA, 0, True)):
        err, _ = c.reply(c.request(nbd.NBD_CMD_WRITE, 4096, 8192, 0, data))
        expect(err == 0, "write failed: %d" % err)
        err, _ = c.reply(c.request(nbd.NBD_CMD_WRITE_ZEROES, 4096, 8192, flags))
        expect(err == want, "zero flags %#x: error %d, want %d" % (flags, err, want))
        got = c.read_ok(4096, 8192)
        expect(got == (bytes(8192) if zeroed else data),
               "zero flags %#x: data %s" % (flags, "not zeroed" if zeroed else "changed"))


def read_only_writes(path):
    c, size = transmission(path)
    for cmd, payload in ((nbd.NBD_CMD_WRITE, b"x" * 4096), (nbd.NBD_CMD_TRIM, b""),
                         (nbd.NBD_CMD_WRITE_ZEROES, b"")):
        c.expect_error(c.request(cmd, 0, 4096, 0, payload), nbd.NBD_EPERM,
                       "command %d" % cmd)
        c.read_ok()


def bad_request_magic(path):
    c, _ = transmission(path)
    c.s.sendall(nbd.REQUEST.pack(0x12345678, 0, nbd.NBD_CMD_READ, 1, 0, 512))
    expect(c.closed_by_server(), "server accepted a bad request magic")


def disconnect_mid_header(path):
    c, _ = transmission(path)
    c.s.sendall(struct.pack(">IHH", nbd.NBD_REQUEST_MAGIC, 0, nbd.NBD_CMD_READ))
    c.s.close()


def disconnect_mid_payload(path):
    c, _ = transmission(path)
    c.s.sendall(nbd.REQUEST.pack(nbd.NBD_REQUEST_MAGIC, 0, nbd.NBD_CMD_WRITE,
                                 1, 0, 1 << 20) + b"z" * 1000)
    c.s.close()


def disconnect_mid_reply(path):
    c, _ = transmission(path)
    for i in range(8):
        c.request(nbd.NBD_CMD_READ, 0, nbd.NBD_MAX_PAYLOAD)
    c.s.close()


def main():
    path, name = sys.argv[1], sys.argv[2]
    try:
        globals()[name.replace("-", "_")](path)
    except (Failure, OSError) as e:
        print("nbd-raw.py %s: %s" % (name, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
