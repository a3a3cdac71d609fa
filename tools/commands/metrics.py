#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sockboost metrics: host mode's counts (sb-host status --json) in the
Prometheus text format, per filter entry and user and per libvirt
domain, printed or written atomically for the node exporter's textfile
collector (sockboostlib.metrics).  Run by tools/sockboost; root, as host
mode's pins are root's."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

from sockboostlib import hostmode, libvirtqemu, metrics       # noqa: E402
from sockboostlib.command import Command, Failure             # noqa: E402
from sockboostlib.options import Option, Parser               # noqa: E402
from sockboostlib.text import shown                           # noqa: E402

COMMAND = Command("metrics")
SYSTEM_URI = "qemu:///system"

PARSER = Parser(
    "Usage: sockboost metrics [--output FILE] [--connect URI] "
    "[--pin-dir DIR]", """\
Print host mode's counts in the Prometheus text format: the stalls of the
NBD programs' TCP connections (segments that waited for a delayed ACK),
their seconds, bytes sent and received and connections, per filter entry
and user, and per libvirt domain whose QEMU runs here (found through
libvirt's own records, never a process's name); whether the counting and
the tuning are on.  With --output, FILE is replaced at once (a temporary
file beside it, then a rename), as the node exporter's textfile collector
wants: /var/lib/prometheus/node-exporter/sockboost.prom on Debian, which
the sockboost-metrics timer refreshes.  Needs root.""",
    [Option("--output", "write FILE instead of printing", value="FILE"),
     Option(("-c", "--connect"), "the libvirt connection whose domains to "
            "name (default %s; local QEMU drivers only)" % SYSTEM_URI,
            value="URI"),
     Option("--pin-dir", "host mode's pins, as 'sockboost host --pin-dir'",
            value="DIR")])


def domains(uri):
    """{pid: domain name} of the running domains of URI; those libvirt's
    records and the process disagree on are left out, with a warning."""
    found, refused = libvirtqemu.running_domains(
        libvirtqemu.state_dir(uri, os.environ))
    for name, why in refused:
        COMMAND.warn("domain %s not named: %s" % (shown(name), why))
    return found


def main(argv):
    args = PARSER.parse(argv)
    ask = ["status"] + (["--pin-dir", args.pin_dir] if args.pin_dir else [])
    status, why = hostmode.ask(*ask)
    if status is None:
        raise Failure("cannot read host mode's counts: %s" % why)
    text = metrics.exposition(status, domains(args.connect or SYSTEM_URI))
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        metrics.write_atomically(args.output, text)
    except (OSError, ValueError, metrics.trust.Untrusted) as e:
        raise Failure("%s: %s" % (shown(args.output),
                                  getattr(e, "strerror", None) or e)) from None
    return 0


if __name__ == "__main__":
    COMMAND.exit_with(main)
