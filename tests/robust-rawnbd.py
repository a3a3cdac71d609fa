#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Raw NBD client for fault tests: says exactly what it is told, including
what a well-behaved client never says, and prints what came back.

    robust-rawnbd.py ADDRESS STEP...

ADDRESS is unix:PATH or tcp:HOST:PORT.  Steps run in order on one
connection; each prints one line (bats asserts on them):

    greeting            read the greeting, send client flags (NO_ZEROES)
    go[=NAME]           NBD_OPT_GO; prints "go size=N flags=0xF" or the error
    export-name[=NAME]  NBD_OPT_EXPORT_NAME; prints "export size=N" or "eof"
    opt=NUM,LEN         option NUM with LEN bytes of data (zeros); prints the
                        reply types until a final one
    opt-hex=NUM,HEX     option NUM with the given data; prints as opt=
    go-namelen=N        NBD_OPT_GO naming an export of N bytes ("a"*N)
    req=TYPE,OFF,LEN[,FLAGS]
                        a request (TYPE: read, write, flush, trim, zero,
                        cache, block-status or a number); a write carries LEN
                        bytes of payload; prints "reply error=NAME [data=N]"
    req-nopayload=write,OFF,LEN
                        a write header whose payload never comes
    partial-header=N    the first N bytes of a READ request, nothing more
    partial-payload=LEN write header for LEN bytes, then half the payload
    durable-writes=LOG  write 4 KiB blocks 0, 1, 2, ... (block i holds the
                        u64 i repeated) until the connection dies: odd ones
                        with FUA, a FLUSH after every 8; each block whose FUA
                        or a later FLUSH was acknowledged is appended to LOG
    disc                NBD_CMD_DISC
    eof                 wait (bounded) for the server to close: prints
                        "eof" or "data N" (bytes that came before the close)
    close               close the socket now

Protocol numbers are read from nbd/nbd-protocol.h, the only place they live,
through tests/nbdproto.py.
"""

import re
import socket
import struct
import sys

import nbdproto as nbd
from nbdproto import C

TIMEOUT = 20
CMDS = {"read": "READ", "write": "WRITE", "disc": "DISC", "flush": "FLUSH",
        "trim": "TRIM", "cache": "CACHE", "zero": "WRITE_ZEROES",
        "block-status": "BLOCK_STATUS"}


def name_of(prefix, value):
    for k, v in C.items():
        if k.startswith(prefix) and v == value and not k.endswith("_MAGIC"):
            return k[len(prefix):]
    return str(value)


def error_name(error):
    """0 or the errno-like name: EINVAL, EPERM, ..."""
    for k, v in C.items():
        if re.fullmatch(r"NBD_E[A-Z]+", k) and v == error:
            return k[4:]
    return str(error)


class Conn:
    def __init__(self, address):
        kind, _, rest = address.partition(":")
        if kind == "unix":
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.settimeout(TIMEOUT)
            self.s.connect(rest)
        else:
            host, _, port = rest.rpartition(":")
            self.s = socket.create_connection((host.strip("[]"), int(port)),
                                              TIMEOUT)
        self.cookie = 0

    def recv(self, n):
        return nbd.recv_exact(self.s, n)

    def option(self, opt, data):
        self.s.sendall(nbd.OPTION.pack(C["NBD_IHAVEOPT"], opt, len(data))
                       + data)

    def option_reply(self):
        magic, opt, rtype, length = nbd.OPTION_REPLY.unpack(
            self.recv(nbd.OPTION_REPLY.size))
        if magic != C["NBD_REP_MAGIC"]:
            raise ValueError("bad option reply magic 0x%x" % magic)
        return opt, rtype, self.recv(length)

    def request(self, cmd, off, length, flags=0):
        self.cookie += 1
        self.s.sendall(nbd.REQUEST.pack(C["NBD_REQUEST_MAGIC"], flags,
                                        cmd, self.cookie, off, length))

    def simple_reply(self):
        magic, error, cookie = nbd.SIMPLE_REPLY.unpack(
            self.recv(nbd.SIMPLE_REPLY.size))
        if magic != C["NBD_SIMPLE_REPLY_MAGIC"] or cookie != self.cookie:
            raise ValueError("bad reply magic 0x%x cookie %d" % (magic, cookie))
        return error


def step_greeting(c, _):
    magic, ihaveopt, flags = nbd.GREETING.unpack(
        c.recv(nbd.GREETING.size))
    if magic != C["NBD_MAGIC"] or ihaveopt != C["NBD_IHAVEOPT"]:
        raise ValueError("not a fixed newstyle greeting")
    c.s.sendall(struct.pack(">I", C["NBD_FLAG_C_FIXED_NEWSTYLE"]
                            | C["NBD_FLAG_C_NO_ZEROES"]))
    return "greeting flags=0x%x" % flags


def go_with_name(c, name):
    c.option(C["NBD_OPT_GO"], struct.pack(">I", len(name)) + name
             + struct.pack(">H", 0))
    size = flags = None
    while True:
        _, rtype, data = c.option_reply()
        if rtype == C["NBD_REP_INFO"]:
            if struct.unpack(">H", data[:2])[0] == C["NBD_INFO_EXPORT"]:
                size, flags = struct.unpack(">QH", data[2:12])
        elif rtype == C["NBD_REP_ACK"]:
            return "go size=%d flags=0x%x" % (size, flags)
        else:
            return "go %s" % name_of("NBD_REP_", rtype)


def step_go(c, arg):
    return go_with_name(c, (arg or "").encode())


def step_go_namelen(c, arg):
    return go_with_name(c, b"a" * int(arg))


def step_export_name(c, arg):
    c.option(C["NBD_OPT_EXPORT_NAME"], (arg or "").encode())
    try:
        size, _ = struct.unpack(">QH", c.recv(10))
    except EOFError:
        return "eof"
    return "export size=%d" % size


def step_opt(c, arg):
    opt, length = (int(x) for x in arg.split(","))
    return option_replies(c, opt, bytes(length))


def step_opt_hex(c, arg):
    opt, data = arg.split(",")
    return option_replies(c, int(opt), bytes.fromhex(data))


def option_replies(c, opt, data):
    c.option(opt, data)
    types = []
    while True:
        _, rtype, _ = c.option_reply()
        types.append(name_of("NBD_REP_", rtype))
        if rtype != C["NBD_REP_SERVER"] and rtype != C["NBD_REP_INFO"]:
            return "opt %d %s" % (opt, " ".join(types))


def parse_req(arg):
    parts = arg.split(",")
    cmd = parts[0]
    cmd = C["NBD_CMD_" + CMDS[cmd]] if cmd in CMDS else int(cmd)
    flags = int(parts[3], 0) if len(parts) > 3 else 0
    return cmd, int(parts[1], 0), int(parts[2], 0), flags


def step_req(c, arg):
    cmd, off, length, flags = parse_req(arg)
    c.request(cmd, off, length, flags)
    if cmd == C["NBD_CMD_WRITE"]:
        c.s.sendall(bytes([0x5a]) * length)
    error = c.simple_reply()
    line = "reply error=%s" % error_name(error)
    if error == 0 and cmd == C["NBD_CMD_READ"]:
        line += " data=%d" % len(c.recv(length))
    return line


def step_req_nopayload(c, arg):
    cmd, off, length, flags = parse_req(arg)
    c.request(cmd, off, length, flags)
    return "sent header only"


def step_partial_header(c, arg):
    c.cookie += 1
    whole = nbd.REQUEST.pack(C["NBD_REQUEST_MAGIC"], 0,
                             C["NBD_CMD_READ"], c.cookie, 0, 512)
    c.s.sendall(whole[:int(arg)])
    return "sent %s of %d header bytes" % (arg, len(whole))


def step_partial_payload(c, arg):
    length = int(arg)
    c.request(C["NBD_CMD_WRITE"], 0, length)
    c.s.sendall(bytes(length // 2))
    return "sent %d of %d payload bytes" % (length // 2, length)


def block_content(i):
    return struct.pack(">Q", i) * 512


def step_durable_writes(c, arg):
    log = open(arg, "a")
    size = C["NBD_MAX_PAYLOAD"]   # any bound: the server is killed first
    pending = []
    i = 0
    try:
        while (i + 1) * 4096 <= size:
            fua = C["NBD_CMD_FLAG_FUA"] if i % 2 else 0
            c.request(C["NBD_CMD_WRITE"], i * 4096, 4096, fua)
            c.s.sendall(block_content(i))
            if c.simple_reply() != 0:
                return "write %d failed" % i
            pending.append(i)
            if fua:
                log.write("%d\n" % i)
            if i % 8 == 7:
                c.request(C["NBD_CMD_FLUSH"], 0, 0)
                if c.simple_reply() != 0:
                    return "flush failed"
                log.write("".join("%d\n" % p for p in pending))
                pending = []
            log.flush()
            i += 1
    except (EOFError, OSError):
        return "connection lost after %d writes" % i
    return "all %d writes done" % i


def step_disc(c, _):
    c.request(C["NBD_CMD_DISC"], 0, 0)
    return "disc"


def step_eof(c, _):
    got = 0
    while True:
        try:
            chunk = c.s.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return "eof" if got == 0 else "data %d" % got
        got += len(chunk)


def step_close(c, _):
    c.s.close()
    return "closed"


STEPS = {name[5:].replace("_", "-"): fn for name, fn in globals().items()
         if name.startswith("step_")}


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    c = Conn(argv[1])
    for step in argv[2:]:
        name, _, arg = step.partition("=")
        try:
            print(STEPS[name](c, arg), flush=True)
        except EOFError as e:
            print("eof after %d bytes" % e.args[0], flush=True)
            return 1
        except (ConnectionResetError, BrokenPipeError) as e:
            print("eof (%s)" % e.strerror, flush=True)
            return 1
        except socket.timeout:
            print("timeout", flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
