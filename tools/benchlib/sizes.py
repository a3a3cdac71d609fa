# SPDX-License-Identifier: MIT
"""Sizes ("2M", "4194304") read by the C code that reads them everywhere
else (common/parse-size.c), through sb-socketpair-bench --parse-only, and
what the library decides for a send buffer, through sb-config: no script
restates which forms are valid or when the library changes a buffer."""

import functools
import json
import os
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


@functools.lru_cache(maxsize=None)
def library_changes_buffer(size):
    """Whether the library with SOCKBOOST_SNDBUF=SIZE changes a new unix
    socket's send buffer (it never lowers one): sb-config's "option" is
    "none" when it leaves it alone.  True when sb-config is missing."""
    if locate("sb-config") is None:
        return True
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOCKBOOST_")}
    env["SOCKBOOST_SNDBUF"] = size
    r = subprocess.run(program("sb-config"), env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    fields = dict(line.split("\t", 1) for line in r.stdout.splitlines()
                  if "\t" in line)
    return fields.get("option") != "none"
