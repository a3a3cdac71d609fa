# SPDX-License-Identifier: MIT
"""Sizes ("2M", "4194304") read by the C code that reads them everywhere
else (common/parse-size.c), through sb-socketpair-bench --parse-only:
no script restates which forms are valid."""

import json
import subprocess

from .programs import locate, program

HELPER = "sb-socketpair-bench"
# The helper's option for each kind of size: a send buffer (at most what
# the kernel can double into an int) or a count of bytes.
OPTIONS = {"sndbuf": "--sndbuf", "bytes": "--total"}


def parse(text, kind):
    """The bytes TEXT stands for, as a size of KIND ("sndbuf" or
    "bytes").  Raises ValueError saying why TEXT is not a size."""
    if locate(HELPER) is None:
        raise ValueError("cannot read the size %r: %s is not built (run "
                         "make)" % (text, HELPER))
    option = OPTIONS[kind]
    r = subprocess.run(program(HELPER) + ["--parse-only", "--json",
                                          option, text],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        # "sb-socketpair-bench: --total: invalid size '3X': ...": the part
        # after the helper's option is about the text alone.
        first = (r.stderr.splitlines() or ["invalid size %r" % text])[0]
        raise ValueError(first.partition(option + ": ")[2] or first)
    return json.loads(r.stdout)[option.lstrip("-")]
