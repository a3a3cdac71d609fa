# SPDX-License-Identifier: MIT
"""What the runs of one benchmark share: its options, a scratch
directory, the library's logs, and data files made once on first use."""

import os
import re
import tempfile

from . import programs
from .procs import config_env

# A socket the library tuned, as it logs it at SOCKBOOST_DEBUG=2.
TUNED_LINE = re.compile(r"fd [0-9]+ (unix|tcp) .* -> ")


class Context:
    def __init__(self, args, tmpdir):
        self.args, self.tmpdir = args, tmpdir
        self.sock = os.path.join(tmpdir, "nbd.sock")
        self.pidfile = os.path.join(tmpdir, "server.pid")
        self.logdir = os.path.join(tmpdir, "logs")
        os.mkdir(self.logdir)
        self.scratch = []

    def env(self, config):
        """Environment of a process of a run in configuration CONFIG."""
        return config_env(config, programs.LIBRARY, self.logdir)

    def tuned_sockets(self):
        """Sockets the library logged as tuned since the last call."""
        count = 0
        for name in os.listdir(self.logdir):
            path = os.path.join(self.logdir, name)
            with open(path, errors="replace") as f:
                count += sum(1 for line in f if TUNED_LINE.search(line))
            os.unlink(path)
        return count

    def shm_file(self, suffix):
        """A new empty file in /dev/shm, removed by cleanup(): qemu-img and
        nbdcopy data must not measure a disk."""
        fd, path = tempfile.mkstemp(prefix="sockboost-bench-", suffix=suffix,
                                    dir="/dev/shm")
        os.close(fd)
        self.scratch.append(path)
        return path

    def data_file(self):
        """A file of args.data_size non-zero bytes (qemu-img and nbdcopy
        skip zeroes)."""
        if not hasattr(self, "_data_file"):
            path = self.shm_file(".img")
            chunk = bytes(range(1, 256)) * 4112
            left = self.args.data_size
            with open(path, "wb") as f:
                while left > 0:
                    n = min(left, 1 << 20)
                    f.write(chunk[:n])
                    left -= n
            self._data_file = path
        return self._data_file

    def cleanup(self):
        for path in self.scratch:
            if os.path.lexists(path):
                os.unlink(path)
