#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Raw NBD traffic, well-formed or not, to check a server's answers.
#   nbd-raw.py SOCKET SCENARIO      exits 0 if the server answered as the
#                                   protocol says, 1 with a message if not
import socket
import struct
import sys

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
REP_MAGIC = 0x3E889045565A9
REQ_MAGIC = 0x25609513
SIMPLE_MAGIC = 0x67446698
STRUCT_MAGIC = 0x668E33EF
OPT_EXPORT_NAME, OPT_ABORT, OPT_LIST, OPT_STARTTLS, OPT_INFO, OPT_GO = 1, 2, 3, 5, 6, 7
OPT_STRUCTURED, OPT_SET_META, OPT_EXTENDED = 8, 10, 11
REP_ACK, REP_SERVER, REP_INFO = 1, 2, 3
ERR = 1 << 31
ERR_UNSUP, ERR_INVALID, ERR_UNKNOWN, ERR_TOO_BIG = ERR | 1, ERR | 3, ERR | 6, ERR | 9
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH, CMD_TRIM, CMD_CACHE = 0, 1, 2, 3, 4, 5
CMD_ZERO, CMD_BLOCK_STATUS = 6, 7
EPERM, EINVAL, ENOSPC = 1, 22, 28
TIMEOUT = 20


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

    def recv(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise Failure("server closed the connection after %d of %d bytes" % (len(buf), n))
            buf += chunk
        return buf

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

    def greeting(self, flags=3):
        magic, ihaveopt, gflags = struct.unpack(">QQH", self.recv(18))
        expect(magic == NBDMAGIC and ihaveopt == IHAVEOPT, "bad greeting")
        expect(gflags == 3, "handshake flags %#x, want FIXED_NEWSTYLE|NO_ZEROES" % gflags)
        self.s.sendall(struct.pack(">I", flags))

    def option(self, opt, data=b"", length=None):
        length = len(data) if length is None else length
        self.s.sendall(struct.pack(">QII", IHAVEOPT, opt, length) + data)

    def opt_reply(self, opt):
        magic, ropt, rtype, rlen = struct.unpack(">QIII", self.recv(20))
        expect(magic == REP_MAGIC, "bad option reply magic %#x" % magic)
        expect(ropt == opt, "reply for option %d, want %d" % (ropt, opt))
        return rtype, self.recv(rlen)

    def expect_reply(self, opt, want):
        rtype, _ = self.opt_reply(opt)
        expect(rtype == want, "option %d: reply %#x, want %#x" % (opt, rtype, want))

    def go(self, name=b"", structured=False):
        if structured:
            self.option(OPT_STRUCTURED)
            self.expect_reply(OPT_STRUCTURED, REP_ACK)
        self.option(OPT_GO, struct.pack(">I", len(name)) + name + struct.pack(">H", 0))
        size = None
        while True:
            rtype, data = self.opt_reply(OPT_GO)
            if rtype == REP_ACK:
                break
            expect(rtype == REP_INFO, "GO: reply %#x" % rtype)
            if struct.unpack(">H", data[:2])[0] == 0:
                size, _ = struct.unpack(">QH", data[2:])
        expect(size is not None, "GO: no NBD_INFO_EXPORT")
        self.structured = structured
        return size

    def request(self, cmd, offset, length, flags=0, payload=b""):
        self.cookie += 1
        self.s.sendall(struct.pack(">IHHQQI", REQ_MAGIC, flags, cmd, self.cookie,
                                   offset, length) + payload)
        return self.cookie

    def reply(self, cookie, data_len=0):
        """Return (error, data) of the reply to COOKIE."""
        magic = struct.unpack(">I", self.recv(4))[0]
        if magic == SIMPLE_MAGIC:
            err, c = struct.unpack(">IQ", self.recv(12))
            expect(c == cookie, "cookie %d, want %d" % (c, cookie))
            return err, self.recv(data_len) if err == 0 else b""
        expect(magic == STRUCT_MAGIC, "bad reply magic %#x" % magic)
        flags, rtype, c, length = struct.unpack(">HHQI", self.recv(16))
        expect(c == cookie and flags & 1, "structured reply: cookie/DONE")
        body = self.recv(length)
        if rtype == 1:
            return 0, body[8:]
        expect(rtype == 32769, "unexpected chunk type %d" % rtype)
        return struct.unpack(">I", body[:4])[0], b""

    def expect_error(self, cookie, want, what):
        err, _ = self.reply(cookie)
        expect(err == want, "%s: error %d, want %d" % (what, err, want))

    def read_ok(self, offset=0, length=4096):
        err, data = self.reply(self.request(CMD_READ, offset, length), length)
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
    c.recv(18)
    c.s.sendall(b"\xde\xad\xbe\xef" * 64)
    expect(c.closed_by_server(), "server kept a connection that sent garbage")


def unknown_client_flags(path):
    c = Conn(path)
    c.greeting(flags=0x80000003)
    expect(c.closed_by_server(), "server accepted unknown client flags")


def bad_option_magic(path):
    c = Conn(path)
    c.greeting()
    c.s.sendall(struct.pack(">QII", 0x1122334455667788, OPT_GO, 0))
    expect(c.closed_by_server(), "server accepted a bad option magic")


def unsupported_options(path):
    c = Conn(path)
    c.greeting()
    for opt in (OPT_STARTTLS, OPT_EXTENDED, OPT_SET_META, 4, 99, 0xFFFFFFFF):
        c.option(opt, b"xyz" if opt == 99 else b"")
        c.expect_reply(opt, ERR_UNSUP)
    expect(c.go() > 0, "GO after unsupported options")
    c.read_ok()


def malformed_info(path):
    c = Conn(path)
    c.greeting()
    for data in (b"", b"\0\0", struct.pack(">IH", 100, 0),
                 struct.pack(">I", 0) + struct.pack(">H", 5) + b"\0\0",
                 struct.pack(">I", 1) + b"x" + struct.pack(">H", 0) + b"extra"):
        c.option(OPT_INFO, data)
        c.expect_reply(OPT_INFO, ERR_INVALID)
    c.option(OPT_LIST, b"junk")
    c.expect_reply(OPT_LIST, ERR_INVALID)
    c.option(OPT_STRUCTURED, b"junk")
    c.expect_reply(OPT_STRUCTURED, ERR_INVALID)
    c.option(OPT_GO, struct.pack(">I", 5) + b"wrong" + struct.pack(">H", 0))
    c.expect_reply(OPT_GO, ERR_UNKNOWN)
    expect(c.go() > 0, "GO after malformed options")


def option_too_long(path):
    c = Conn(path)
    c.greeting()
    # Over the limit but sent in full: drained, refused, stream in step.
    c.option(OPT_INFO, b"\0" * 100000)
    c.expect_reply(OPT_INFO, ERR_TOO_BIG)
    # At the limit: accepted and parsed (an over-long name, so invalid).
    c.option(OPT_INFO, b"\0" * 4096)
    c.expect_reply(OPT_INFO, ERR_INVALID)
    expect(c.go() > 0, "GO after an over-long option")
    c.read_ok()


def export_name_too_long(path):
    c = Conn(path)
    c.greeting()
    c.option(OPT_EXPORT_NAME, b"", length=0xFFFFFFFF)
    expect(c.closed_by_server(), "server waited for a 4 GiB export name")


def disconnect_mid_option(path):
    c = Conn(path)
    c.greeting()
    c.option(OPT_GO, b"\0\0", length=10)
    c.s.close()


# ---- scenarios: transmission ----

def bad_requests(path, structured):
    c, size = transmission(path, structured)
    cases = [
        (CMD_READ, size - 100, 4096, 0, EINVAL, "read crossing the end"),
        (CMD_READ, 2**64 - 1, 2, 0, EINVAL, "read with offset overflow"),
        (CMD_READ, 0, 0, 0, EINVAL, "zero-length read"),
        (CMD_READ, 0, 64 << 20, 0, EINVAL, "64 MiB read"),
        (CMD_READ, 0, 4096, 1 << 7, EINVAL, "read with unknown flag"),
        (CMD_TRIM, size, 1, 0, EINVAL, "trim past the end"),
        (CMD_ZERO, size - 1, 2, 0, ENOSPC, "zero past the end"),
        (CMD_ZERO, 0, 4096, 1 << 3, EINVAL, "zero with REQ_ONE"),
        (CMD_CACHE, 0, 4096, 0, EINVAL, "cache (not offered)"),
        (CMD_BLOCK_STATUS, 0, 4096, 0, EINVAL, "block status (no context)"),
        (99, 0, 4096, 0, EINVAL, "unknown command 99"),
        (0xFFFF, 0, 0, 0, EINVAL, "unknown command 65535"),
    ]
    for cmd, off, length, flags, want, what in cases:
        c.expect_error(c.request(cmd, off, length, flags), want, what)
        c.read_ok()
    # Writes whose payload must be consumed even though they are refused.
    writes = [
        (size - 10, 4096, 0, ENOSPC, "write past the end"),
        (0, 4096, 1 << 4, EINVAL, "write with FAST_ZERO"),
        (0, (32 << 20) + 1, 0, EINVAL, "write of 32 MiB + 1"),
        (0, 40 << 20, 0, EINVAL, "write of 40 MiB"),
    ]
    for off, length, flags, want, what in writes:
        c.expect_error(c.request(CMD_WRITE, off, length, flags, b"\x55" * length),
                       want, what)
        c.read_ok()
    c.request(CMD_DISC, 0, 0)
    expect(c.closed_by_server(), "server kept the connection after DISC")


def bad_requests_simple(path):
    bad_requests(path, False)


def bad_requests_structured(path):
    bad_requests(path, True)


def write_read_back(path):
    c, size = transmission(path, True)
    data = bytes(range(256)) * 16
    err, _ = c.reply(c.request(CMD_WRITE, size - 4096, 4096, 1, data))
    expect(err == 0, "write of the last 4 KiB with FUA: error %d" % err)
    expect(c.read_ok(size - 4096) == data, "read back differs")
    # Trims and zeroes are not payloads: 64 MiB in one request is fine
    # when the export is that large.
    if size >= 64 << 20:
        for cmd in (CMD_ZERO, CMD_TRIM):
            err, _ = c.reply(c.request(cmd, 0, 64 << 20))
            expect(err == 0, "64 MiB command %d: error %d" % (cmd, err))
        expect(c.read_ok(32 << 20) == bytes(4096), "zeroed range not zero")
    # Pipelined: several requests in one send, replies in order.
    cookies = [c.request(CMD_READ, i * 512, 512) for i in range(8)]
    for k in cookies:
        err, _ = c.reply(k, 512)
        expect(err == 0, "pipelined read failed")


def fast_zero_without_zero_range(path):
    """On a file system that can punch holes but not zero ranges."""
    FUA, NO_HOLE, FAST = 1, 2, 16
    ENOTSUP = 95
    c, size = transmission(path, True)
    data = b"\xab" * 8192
    for flags, want, zeroed in ((FAST | NO_HOLE, ENOTSUP, False),
                                (NO_HOLE, 0, True), (FAST, 0, True),
                                (FAST | FUA, 0, True)):
        err, _ = c.reply(c.request(CMD_WRITE, 4096, 8192, 0, data))
        expect(err == 0, "write failed: %d" % err)
        err, _ = c.reply(c.request(CMD_ZERO, 4096, 8192, flags))
        expect(err == want, "zero flags %#x: error %d, want %d" % (flags, err, want))
        got = c.read_ok(4096, 8192)
        expect(got == (bytes(8192) if zeroed else data),
               "zero flags %#x: data %s" % (flags, "not zeroed" if zeroed else "changed"))


def read_only_writes(path):
    c, size = transmission(path)
    for cmd, payload in ((CMD_WRITE, b"x" * 4096), (CMD_TRIM, b""), (CMD_ZERO, b"")):
        c.expect_error(c.request(cmd, 0, 4096, 0, payload), EPERM, "command %d" % cmd)
        c.read_ok()


def bad_request_magic(path):
    c, _ = transmission(path)
    c.s.sendall(struct.pack(">IHHQQI", 0x12345678, 0, CMD_READ, 1, 0, 512))
    expect(c.closed_by_server(), "server accepted a bad request magic")


def disconnect_mid_header(path):
    c, _ = transmission(path)
    c.s.sendall(struct.pack(">IHH", REQ_MAGIC, 0, CMD_READ))
    c.s.close()


def disconnect_mid_payload(path):
    c, _ = transmission(path)
    c.s.sendall(struct.pack(">IHHQQI", REQ_MAGIC, 0, CMD_WRITE, 1, 0, 1 << 20) + b"z" * 1000)
    c.s.close()


def disconnect_mid_reply(path):
    c, _ = transmission(path)
    for i in range(8):
        c.request(CMD_READ, 0, 32 << 20)
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
