# SPDX-License-Identifier: MIT
"""The migration workload: disk transfers between two QEMU system
emulators over NBD, as libvirt drives them for storage migration (push)
and backup (pull), each QEMU plain and then under the library.  With
--root, the same runs with a root's QEMU: the newest one has no stall of
its own and is the reference the library should bring QEMU 7.2 to.
Cases as in unix.py; the transfers themselves are in migration_qemu.py."""

import os
import sys

from . import hostmode, images, migration_qemu, report
from .context import FS_MIB, MiB
from sockboostlib import paths

from .programs import need, need_library, program

# Fragmented images (4 KiB of data every 128 KiB), in MiB, full and
# --quick, per direction: QEMU 7.2 pays about 4 ms per data/hole boundary
# when it pushes (1 GiB: about 30 s plain), and 45 ms over TCP, 180 ms
# over TLS when it is pulled from (16 MiB: 6 s and 23 s).
FRAGMENTED_MIB = {"push": {False: 1024, True: 4},
                  "pull": {False: 16, True: 1}}
# The fully allocated image (random data, no hole), full and --quick.
ALLOCATED_MIB = {False: 1024, True: 32}

# The transfers (migration_qemu.TRANSFERS) and their names in the cases.
DIRECTIONS = (("push", "push"), ("pull-mirror", "pull, mirror"),
              ("pull-convert", "pull, qemu-img convert"))
PLOT_SCRIPT = paths.data("benchlib/bench-migration.gp")

# The paragraphs under the workload's heading in the report.
NOTES = [
    "Two QEMU system emulators (qemu-system-x86_64 -M none, TCG), "
    "driven over QMP as libvirt drives them, with the NBD server on "
    "127.0.0.1. push (storage migration, virsh migrate "
    "--copy-storage-all): the destination serves an empty image of the "
    "source's format and size writable (nbd-server-start, "
    "block-export-add), the source mirrors into it (blockdev-mirror to "
    "an nbd node); timed from the source's connection to "
    "BLOCK_JOB_READY. pull, mirror (backup pull, virsh backup-begin): "
    "the source serves its image read-only, the destination mirrors the "
    "export into a raw image; timed the same way. pull, qemu-img "
    "convert: a backup program copies the source's export into a raw "
    "file. Every copy is checked with qemu-img compare.",
    "\"default\": both QEMUs as they are; \"library\": both under "
    "libsockboost.so; \"host\" (as root, where sockboost host check "
    "passes): both in a cgroup of the benchmark's own where sockboost "
    "host is on, its default filter, no library; qemu-img always runs "
    "as it is. QEMU before 8.0 "
    "leaves Nagle's algorithm on for the connections its NBD server "
    "accepts. With --root, LABEL:default is that root's QEMU as it is: "
    "from 8.0 on it sets TCP_NODELAY and corks its replies itself, so "
    "the newest QEMU alone is the stall-free reference.",
    "Images, made at run time in /dev/shm: a fragmented raw image (4 KiB "
    "of random data every 128 KiB) of %d MiB to push, %d MiB to pull "
    "(--quick %d and %d); an ext4 file system as qcow2, as in the tcp "
    "workload; a fully allocated raw image of %d MiB (--quick %d) of "
    "random data. TLS: a tls-creds-x509 object in every QEMU and in "
    "qemu-img, certificates made with openssl for the run." % (
        FRAGMENTED_MIB["push"][False], FRAGMENTED_MIB["pull"][False],
        FRAGMENTED_MIB["push"][True], FRAGMENTED_MIB["pull"][True],
        ALLOCATED_MIB[False], ALLOCATED_MIB[True])]
PLOT_FILES = ["migration.dat", "migration.png", "migration.svg"]


def fragmented_mib(direction, quick):
    return FRAGMENTED_MIB[direction.split("-")[0]][quick]


def raw_image(stride, extent):
    """The source of a raw image with EXTENT bytes of random data every
    STRIDE bytes, holes between (none when EXTENT is STRIDE)."""
    def source(ctx, mib):
        def make():
            path = ctx.shm_file(".raw.img")
            images.make_sparse_image(path, mib * MiB, stride, extent)
            return path
        return ctx.once("raw %d %d %d" % (stride, extent, mib), make), "raw"
    return source


# Each image: its name in the cases; its size in MiB for a direction and
# --quick; a function of the context and that size giving (path, format),
# made on first use.
IMAGES = (
    ("fragmented raw", fragmented_mib, raw_image(128 << 10, 4 << 10)),
    ("ext4 qcow2", lambda direction, quick: FS_MIB[quick][0],
     lambda ctx, mib: (ctx.fs_image()[0], "qcow2")),
    ("allocated raw", lambda direction, quick: ALLOCATED_MIB[quick],
     raw_image(64 << 10, 64 << 10)))


def migration_cases(args):
    need_library()
    need("qemu-system-x86_64", "qemu-img", "mkfs.ext4", "openssl")
    configs = ["default", "library"]
    cgroup2, why = hostmode.check()
    if cgroup2 is not None:
        configs.append(hostmode.CONFIG)
    else:
        print("bench: migration: no host column: %s" % why, file=sys.stderr)
    return [("%s, %s %d MiB%s" % (title, image, mib(direction, args.quick),
                                  ", TLS" if tls else ""),
             "copy_time", configs,
             transfer_run(direction, source, mib(direction, args.quick), tls))
            for direction, title in DIRECTIONS
            for image, mib, source in IMAGES for tls in (False, True)]


def transfer_run(direction, source, mib, tls):
    """A run: DIRECTION of the image of MIB MiB SOURCE(ctx, mib) gives,
    over TLS if TLS; both QEMUs in the run's configuration, qemu-img as
    it is."""
    def one(config, ctx):
        path, fmt = source(ctx, mib)
        size = mib * MiB
        qemu = program("qemu-system-x86_64")
        if config == hostmode.CONFIG:
            qemu = ctx.host_mode().prefix(qemu)
        setup = migration_qemu.Setup(
            qemu, program("qemu-img"), ctx.env(config), ctx.env("default"),
            ctx.tmpdir, ctx.certificates() if tls else None)
        target = ctx.once("migration target", lambda: ctx.shm_file(".copy"))
        try:
            seconds = migration_qemu.transfer(direction, setup, path, fmt,
                                              size, target)
        finally:
            # A copy of the allocated image is a GiB of memory.
            os.truncate(target, 0)
        return {"seconds": seconds, "bytes": size, "value": seconds}

    def prepare(ctx):
        source(ctx, mib)
        if tls:
            ctx.certificates()
    # Made before the first run's CPU time is counted.
    one.prepare = prepare
    return one


def plot_data(planned, rows):
    """gnuplot's data: a header of configurations, then per case its
    quoted name and each configuration's median seconds ("-": none)."""
    cases = next((c for w, c in planned if w == "migration"), [])
    if not cases:
        return None
    configs = cases[0][2]
    lines = ["case " + " ".join('"%s"' % c for c in configs)]
    for case, _, _, _ in cases:
        cells = []
        for config in configs:
            m = report.medians(rows, "migration", case, config)
            cells.append("-" if m is None else "%.4f" % m["value"])
        lines.append('"%s" %s' % (case, " ".join(cells)))
    return "\n".join(lines) + "\n", len(configs)


def plot(args, planned, rows, out):
    """Seconds per transfer, a group of bars per case, into OUT."""
    data = plot_data(planned, rows)
    if data is None:
        return []
    return report.gnuplot(out, PLOT_FILES, data[0], PLOT_SCRIPT,
                          "nconfigs=%d" % data[1])
