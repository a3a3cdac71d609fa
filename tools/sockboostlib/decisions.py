# SPDX-License-Identifier: MIT
"""What libsockboost.so decides in this environment, asked of the library
itself: sb-config runs the library's own settings parser and send-buffer
rule (rules/settings.c, rules/tuning.c) and prints the result.
Nothing here knows a rule of the library.

    d = ask()
    d.tb, d.clipped, d.warnings, d.nodelay
"""

import dataclasses
import functools
import os
import subprocess

from . import paths
from .command import Failure


class HelperError(Failure):
    """sb-config is missing or failed."""


@dataclasses.dataclass
class Decisions:
    version: str               # of the library's sources
    settings: str              # the library's own one-line summary
    sndbuf: int                # SOCKBOOST_SNDBUF in bytes, 0 when off
    nodelay: bool
    cork: bool
    scope: str                 # "all" or "nbd"
    wmem_default: int
    wmem_max: int              # -1 when unknown
    can_force: bool            # SO_SNDBUFFORCE allowed
    before: int                # the socket's tb when the library sees it
    request: int               # what it asks SO_SNDBUF(FORCE) for, 0: off
    option: str                # "SO_SNDBUF", "SO_SNDBUFFORCE" or "none"
    clipped: bool              # wmem_max clips the request
    tb: int                    # the socket's tb afterwards (ss's tb)
    warnings_printed: bool     # whether the library prints its warnings
    warnings: list             # each as the library prints it
    invalid: list              # (variable, value shown, what it expects)


def parse(output):
    """Decisions from sb-config's 'KEY<tab>VALUE...' lines."""
    values, warnings, invalid = {}, [], []
    for line in output.splitlines():
        key, _, value = line.partition("\t")
        if key == "warning":
            warnings.append(value)
        elif key == "invalid":
            invalid.append(tuple(value.split("\t")))
        else:
            values.setdefault(key, value)
    fields = {}
    for f in dataclasses.fields(Decisions):
        if f.name in ("warnings", "invalid"):
            continue
        text = values[f.name]
        fields[f.name] = (text if f.type is str
                          else bool(int(text)) if f.type is bool
                          else int(text))
    return Decisions(warnings=warnings, invalid=invalid, **fields)


def ask(before=None, program_asked=None, can_force=None, env=None):
    """The library's decisions in ENV (default: ours) for a unix socket of
    tb BEFORE, or one whose program asked SO_SNDBUF PROGRAM_ASKED itself
    before the library saw it; CAN_FORCE overrides whether the program
    may force."""
    args = []
    if before is not None:
        args += ["--before", str(before)]
    if program_asked is not None:
        args += ["--program-asked", str(program_asked)]
    if can_force is not None:
        args += ["--can-force", "yes" if can_force else "no"]
    return parse(sb_config(args, env))


@functools.lru_cache(maxsize=None)
def variables():
    """The names of the variables the library reads (a tuple)."""
    return tuple(line.split("\t")[1]
                 for line in sb_config(["--variables"]).splitlines()
                 if line.startswith("variable\t"))


def sb_config(args, env=None):
    """What sb-config ARGS prints in ENV."""
    cmd = [paths.helper("sb-config")] + args
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HelperError("%s: %s" % (cmd[0], e))
    if r.returncode != 0:
        raise HelperError(r.stderr.strip() or "%s failed" % cmd[0])
    return r.stdout


@functools.lru_cache(maxsize=None)
def changes_buffer(sndbuf):
    """Whether the library with SOCKBOOST_SNDBUF=SNDBUF changes a new unix
    socket's send buffer (it never lowers one).  True when sb-config
    cannot answer: a run is then only not warned about."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOCKBOOST_")}
    env["SOCKBOOST_SNDBUF"] = sndbuf
    try:
        return ask(env=env).option != "none"
    except HelperError:
        return True
