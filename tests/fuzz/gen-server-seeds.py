#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write seed inputs for fuzz-server into tests/fuzz/corpus/server/: whole
client sessions (selector byte, client flags, options, requests) of the
kinds real clients send, so the fuzzer starts from deep in the protocol.
Constants come from nbd/nbd-protocol.h via tests/robust-rawnbd.py.
"""

import importlib.util
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "rawnbd", os.path.join(HERE, "..", "robust-rawnbd.py"))
rawnbd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rawnbd)
C = rawnbd.C

NAME = b"fuzz"                  # the harness's export name


def flags(no_zeroes=True):
    f = C["NBD_FLAG_C_FIXED_NEWSTYLE"]
    return struct.pack(">I", f | (C["NBD_FLAG_C_NO_ZEROES"] if no_zeroes else 0))


def opt(num, data=b""):
    return struct.pack(">QII", C["NBD_IHAVEOPT"], num, len(data)) + data


def go(name=NAME, infos=()):
    return opt(C["NBD_OPT_GO"], struct.pack(">I", len(name)) + name
               + struct.pack(">H", len(infos))
               + b"".join(struct.pack(">H", i) for i in infos))


def req(cmd, off, length, fl=0, cookie=1):
    data = bytes([0xa5]) * length if cmd == "WRITE" else b""
    return struct.pack(">IHHQQI", C["NBD_REQUEST_MAGIC"], fl,
                       C["NBD_CMD_" + cmd], cookie, off, length) + data


def requests():
    fua = C["NBD_CMD_FLAG_FUA"]
    return (req("WRITE", 0, 4096, cookie=1) + req("READ", 0, 4096, cookie=2)
            + req("WRITE", 8192, 512, fua, 3) + req("FLUSH", 0, 0, cookie=4)
            + req("TRIM", 4096, 4096, cookie=5)
            + req("WRITE_ZEROES", 0, 8192, C["NBD_CMD_FLAG_NO_HOLE"], 6)
            + req("READ", 1048576 - 512, 512, cookie=7)
            + req("DISC", 0, 0, cookie=8))


SEEDS = {
    "go-structured": b"\x00" + flags() + opt(C["NBD_OPT_STRUCTURED_REPLY"])
    + go(infos=(C["NBD_INFO_BLOCK_SIZE"], C["NBD_INFO_NAME"])) + requests(),
    "go-simple-pattern": b"\x02" + flags() + go() + requests(),
    "export-name-zeroes": b"\x04" + flags(False)
    + opt(C["NBD_OPT_EXPORT_NAME"], NAME) + requests(),
    "read-only-verbose": b"\x21" + flags() + go(b"") + requests(),
    "haggling": b"\x00" + flags() + opt(C["NBD_OPT_LIST"])
    + opt(C["NBD_OPT_INFO"], struct.pack(">I", 4) + NAME + b"\0\0")
    + opt(C["NBD_OPT_EXTENDED_HEADERS"]) + opt(C["NBD_OPT_STARTTLS"])
    + opt(C["NBD_OPT_SET_META_CONTEXT"], bytes(8)) + go(b"nope")
    + opt(999, bytes(16)) + opt(C["NBD_OPT_ABORT"]),
    "long-option": b"\x00" + flags()
    + opt(C["NBD_OPT_GO"], bytes(C["NBD_MAX_OPTION_LENGTH"] + 1)) + go(),
    "bad-requests": b"\x10" + flags() + go() + req("READ", 0, 0)
    + req("READ", 1 << 62, 512) + struct.pack(">IHHQQI", C["NBD_REQUEST_MAGIC"],
                                              0, 77, 9, 0, 1)
    + req("WRITE", 1048576, 1, cookie=10) + req("CACHE", 0, 512, cookie=11),
}

out = os.path.join(HERE, "corpus", "server")
os.makedirs(out, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(out, "seed-" + name), "wb") as f:
        f.write(data)
