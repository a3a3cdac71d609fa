# SPDX-License-Identifier: MIT
"""What the runs of one benchmark share: its options, a scratch
directory, the library's logs, and data files made once on first use."""

import os
import re
import shutil
import tempfile

from sockboostlib import paths

from sockboostlib.measure.procs import RunError, config_env

from . import hostmode, images

MiB = 1 << 20
# The TCP images, full and --quick.  The sparse one has a 4 KiB extent
# every 128 KiB: a plain qemu-img convert of it from qemu-nbd 7.2 takes
# about 0.04 s per extent over TCP and 0.18 s over TLS (2.5 s and 11 s
# full, 8 extents quick).  The file system: (image MiB, MiB of files).
SPARSE_MIB = {False: 8, True: 1}
FS_MIB = {False: (2048, 128), True: (256, 16)}

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
        self.made = {}

    def env(self, config):
        """Environment of a process of a run in configuration CONFIG."""
        return config_env(config, paths.library(), self.logdir)

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
        def make():
            path = self.shm_file(".img")
            chunk = bytes(range(1, 256)) * 4112
            left = self.args.data_size
            with open(path, "wb") as f:
                while left > 0:
                    n = min(left, MiB)
                    f.write(chunk[:n])
                    left -= n
            return path
        return self.once("data", make)

    def once(self, name, make):
        """What MAKE() returns, made on the first call for NAME only."""
        if name not in self.made:
            self.made[name] = make()
        return self.made[name]

    def sparse_image(self):
        def make():
            path = self.shm_file(".sparse.img")
            images.make_sparse_image(path, SPARSE_MIB[self.args.quick] * MiB,
                                     128 << 10, 4 << 10)
            return path
        return self.once("sparse", make)

    def fs_image(self):
        """(qcow2 path, raw path) of the same ext4 file system."""
        def make():
            size, data = FS_MIB[self.args.quick]
            qcow2, raw = self.shm_file(".ext4.qcow2"), self.shm_file(".ext4.raw")
            tree = os.path.join(self.tmpdir, "tree")
            try:
                images.make_fs_image(qcow2, raw, tree, size * MiB, data * MiB)
            finally:
                shutil.rmtree(tree, ignore_errors=True)
            return qcow2, raw
        return self.once("fs", make)

    def certificates(self):
        """A directory of TLS certificates for server and client."""
        def make():
            pki = os.path.join(self.tmpdir, "pki")
            os.makedirs(pki, exist_ok=True)
            images.make_certificates(pki)
            return pki
        return self.once("pki", make)

    def host_mode(self):
        """The session of the "host" configuration (benchlib.hostmode),
        started on first use; cleanup() ends it."""
        def make():
            cgroup2, why = hostmode.check()
            if cgroup2 is None:
                raise RunError("no host mode: %s" % why)
            return hostmode.Session(cgroup2, self.tmpdir)
        return self.once("host mode", make)

    def cleanup(self):
        if "host mode" in self.made:
            self.made.pop("host mode").close()
        for path in self.scratch:
            if os.path.lexists(path):
                os.unlink(path)
