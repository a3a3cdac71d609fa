#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One disk transfer between QEMU system emulators, for the migration
tests, through the benchmark's own code (tools/benchlib/migration_qemu.py):

  migration-run.py [--library LOGDIR] [--tls PKI] DIRECTION SOURCE TARGET

DIRECTION: push (storage migration), pull-mirror, pull-convert or pull-dd
(backup pull by a QEMU, by qemu-img convert or by qemu-img dd).
qemu-system-x86_64 and qemu-img come from PATH.  --library: both QEMUs
under libsockboost.so (SB_BUILD's), logging each socket it tunes into
LOGDIR; qemu-img always runs without it.  Prints the transfer's
seconds; exit 1 if it failed or the copy differs from SOURCE (qemu-img
compare), 2 for bad arguments."""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "tools"))

from benchlib import migration_qemu                        # noqa: E402
from sockboostlib import paths                             # noqa: E402
from sockboostlib.measure.procs import RunError, config_env  # noqa: E402

PROG = "migration-run.py"


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument("--library", metavar="LOGDIR")
    p.add_argument("--tls", metavar="PKI")
    p.add_argument("direction", choices=sorted(migration_qemu.TRANSFERS))
    p.add_argument("source")
    p.add_argument("target")
    return p.parse_args(argv)


def image_info(path):
    """(format, virtual size) of the image PATH, as qemu-img sees it."""
    out = subprocess.run(["qemu-img", "info", "--output=json", path],
                         stdout=subprocess.PIPE, check=True, timeout=60).stdout
    info = json.loads(out)
    return info["format"], info["virtual-size"]


def main(argv):
    args = parse_args(argv)
    # A test that times out ends this with SIGTERM: stop the QEMUs first.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    fmt, size = image_info(args.source)
    config = "library" if args.library else "default"
    with tempfile.TemporaryDirectory(prefix="migration-run-") as tmp:
        setup = migration_qemu.Setup(
            ["qemu-system-x86_64"], ["qemu-img"],
            config_env(config, paths.library(), args.library),
            config_env("default", paths.library(), None), tmp, args.tls)
        seconds = migration_qemu.transfer(args.direction, setup, args.source,
                                          fmt, size, args.target)
    print("%.3f" % seconds)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (RunError, OSError, subprocess.SubprocessError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        sys.exit(1)
