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
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))  # nbdproto, beside robust-rawnbd
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


def meta(num, queries, name=NAME):
    return opt(num, struct.pack(">I", len(name)) + name
               + struct.pack(">I", len(queries))
               + b"".join(struct.pack(">I", len(q)) + q for q in queries))


def req_ext(cmd, off, length, fl=0, cookie=1):
    payload = length if cmd == "WRITE" or fl & C["NBD_CMD_FLAG_PAYLOAD_LEN"] else 0
    if cmd == "WRITE":
        fl |= C["NBD_CMD_FLAG_PAYLOAD_LEN"]
    return (struct.pack(">IHHQQQ", C["NBD_EXTENDED_REQUEST_MAGIC"], fl,
                        C["NBD_CMD_" + cmd], cookie, off, length)
            + bytes([0x5a]) * payload)


def status_requests(ext):
    r = req_ext if ext else req
    one = C["NBD_CMD_FLAG_REQ_ONE"]
    return (r("WRITE", 8192, 4096, cookie=1) + r("BLOCK_STATUS", 0, 1048576, cookie=2)
            + r("BLOCK_STATUS", 4096, 65536, one, 3) + r("READ", 0, 65536, cookie=4)
            + r("READ", 0, 65536, C["NBD_CMD_FLAG_DF"], 5)
            + r("TRIM", 8192, 4096, cookie=6) + r("BLOCK_STATUS", 0, 0, cookie=7)
            + r("BLOCK_STATUS", 1048576, 1, cookie=8) + r("DISC", 0, 0, cookie=9))


ALLOC = b"base:allocation"

SEEDS = {
    "meta-structured": b"\x00" + flags() + opt(C["NBD_OPT_STRUCTURED_REPLY"])
    + meta(C["NBD_OPT_LIST_META_CONTEXT"], [])
    + meta(C["NBD_OPT_LIST_META_CONTEXT"], [b"base:", b"x-a:b"])
    + meta(C["NBD_OPT_SET_META_CONTEXT"], [ALLOC, b"base:"])
    + go() + status_requests(False),
    "meta-extended": b"\x00" + flags() + opt(C["NBD_OPT_EXTENDED_HEADERS"])
    + meta(C["NBD_OPT_SET_META_CONTEXT"], [ALLOC])
    + go() + status_requests(True)
    + req_ext("READ", 0, 512, C["NBD_CMD_FLAG_PAYLOAD_LEN"], 10),
    "meta-malformed": b"\x00" + flags()
    + meta(C["NBD_OPT_SET_META_CONTEXT"], [ALLOC])
    + opt(C["NBD_OPT_LIST_META_CONTEXT"], struct.pack(">II", 0, 3) + b"\0\0\0\xff")
    + meta(C["NBD_OPT_LIST_META_CONTEXT"], [ALLOC], b"nope")
    + opt(C["NBD_OPT_EXTENDED_HEADERS"]) + opt(C["NBD_OPT_STRUCTURED_REPLY"])
    + go() + req_ext("BLOCK_STATUS", 0, 4096),
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
