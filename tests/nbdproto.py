# SPDX-License-Identifier: MIT
"""NBD protocol numbers and header layouts for the python test helpers.

Every integer #define of nbd/nbd-protocol.h, the only place the numbers
live, is evaluated here and is an attribute of this module under its C name
(nbdproto.NBD_OPT_GO) as well as an entry of the dict C.  The scripts in
tests/ import it as a sibling module (python puts a script's own directory
first on sys.path).

The #define bodies are C expressions; they are parsed as python expressions
and evaluated by walking the syntax tree, allowing only integers, the usual
integer operators, names defined earlier or later in the header, and calls
of function-like macros of the header (NBD_REP_ERR (1)) or of the
<stdint.h> ones (UINT64_C(0x...)).  Anything else (NBD_PACKED, ...) is left
out.  Nothing is passed to eval.
"""

import ast
import operator
import os
import re
import struct

HEADER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "nbd", "nbd-protocol.h")

_BINOPS = {ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
           ast.BitXor: operator.xor, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.Add: operator.add,
           ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.floordiv, ast.Mod: operator.mod}
_UNARYOPS = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_IDENTITY = (["v"], ast.Name("v", ast.Load()))
_STDINT = {"%sINT%d_C" % (u, n): _IDENTITY for u in ("", "U") for n in (8, 16, 32, 64)}


class _NotYet(Exception):
    """The expression names a definition that is not (yet) known."""


def _eval(node, names, macros):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise _NotYet(node.id)
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, names, macros),
                                      _eval(node.right, names, macros))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARYOPS:
        return _UNARYOPS[type(node.op)](_eval(node.operand, names, macros))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in macros and not node.keywords):
        params, body = macros[node.func.id]
        if len(params) != len(node.args):
            raise ValueError("%s: %d arguments" % (node.func.id, len(node.args)))
        local = dict(names)
        local.update(zip(params, (_eval(a, names, macros) for a in node.args)))
        return _eval(body, local, macros)
    raise ValueError("not an integer constant expression")


def _parse(text):
    # C integer suffixes (1U, 0x10ULL) mean nothing to python.
    text = re.sub(r"\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]+\b", r"\1", text)
    return ast.parse(text.strip(), mode="eval").body


def load(path=HEADER):
    """{name: value} of every integer #define of PATH, in header order."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//.*", "", text)
    text = text.replace("\\\n", " ")
    macros = dict(_STDINT)
    exprs = {}
    for name, params, body in re.findall(
            r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^)]*\))?(.*)$", text, re.M):
        try:
            tree = _parse(body)
        except SyntaxError:
            continue
        if params:  # function-like: NAME(a, b) body
            macros[name] = ([p.strip() for p in params[1:-1].split(",")
                             if p.strip()], tree)
        else:
            exprs[name] = tree
    # A definition may use one made further down: resolve until stable.
    values = {}
    while True:
        before = len(values)
        for name, tree in exprs.items():
            if name not in values:
                try:
                    values[name] = _eval(tree, values, macros)
                except _NotYet:
                    pass
                except (ValueError, ArithmeticError):
                    values[name] = None
        if len(values) == before:
            break
    return {name: values[name] for name in exprs
            if values.get(name) is not None}


C = load()
globals().update(C)

# Header layouts, big-endian as on the wire (the structs of nbd-protocol.h).
GREETING = struct.Struct(">QQH")            # struct nbd_new_handshake
OPTION = struct.Struct(">QII")              # struct nbd_option
OPTION_REPLY = struct.Struct(">QIII")       # struct nbd_fixed_new_option_reply
REQUEST = struct.Struct(">IHHQQI")          # struct nbd_request
REQUEST_EXT = struct.Struct(">IHHQQQ")      # struct nbd_request_ext
SIMPLE_REPLY = struct.Struct(">IIQ")        # struct nbd_simple_reply
STRUCTURED_REPLY = struct.Struct(">IHHQI")  # struct nbd_structured_reply
EXTENDED_REPLY = struct.Struct(">IHHQQQ")   # struct nbd_extended_reply
DESCRIPTOR_32 = struct.Struct(">II")        # struct nbd_block_descriptor_32
DESCRIPTOR_EXT = struct.Struct(">QQ")       # struct nbd_block_descriptor_ext


def recv_exact(sock, n):
    """N bytes from SOCK; EOFError(bytes got, N) if the peer closes first."""
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError(len(buf), n)
        buf += chunk
    return buf
