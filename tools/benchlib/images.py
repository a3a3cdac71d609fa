# SPDX-License-Identifier: MIT
"""Disk images and TLS certificates for the TCP workloads, made at run
time: a fragmented sparse raw image, an ext4 file system as qcow2, and a
CA with server and client certificates."""

import os
import random
import subprocess

from sockboostlib.measure.procs import RunError
from .programs import program

SEED = 20230321


def make_sparse_image(path, size, stride, extent):
    """A raw image of SIZE bytes, all hole but for EXTENT bytes of data
    every STRIDE bytes: one data/hole boundary per stride, which qemu-nbd
    before 8.0 pays a delayed ACK for."""
    rng = random.Random(SEED)
    with open(path, "wb") as f:
        f.truncate(size)
        for off in range(0, size, stride):
            os.pwrite(f.fileno(), rng.randbytes(extent), off)


def make_file_tree(top, total):
    """About TOTAL bytes of incompressible files of 1 KiB to 512 KiB in
    nested directories, the spread of a documentation tree; the same
    tree every time."""
    rng = random.Random(SEED)
    n = 0
    while total > 0:
        size = min(total, 1024 << (n % 10))
        sub = os.path.join(top, "d%02d" % (n % 37), "e%d" % (n % 5))
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, "f%05d" % n), "wb") as f:
            f.write(rng.randbytes(size))
        total -= size
        n += 1


def make_fs_image(qcow2, raw, tree, size, data):
    """An ext4 file system of SIZE bytes holding DATA bytes of files,
    made with mkfs.ext4 -d (no mount): the raw image in RAW, the same as
    qcow2 in QCOW2."""
    make_file_tree(tree, data)
    check(program("mkfs.ext4") + ["-q", "-F", "-d", tree, raw,
                                  "%dK" % (size >> 10)])
    check(program("qemu-img") + ["convert", "-q", "-f", "raw", "-O",
                                 "qcow2", raw, qcow2])


def make_certificates(pki):
    """A CA, a server certificate for 127.0.0.1 and a client certificate
    in PKI, named as qemu's tls-creds-x509 object, nbdkit's
    --tls-certificates and libnbd's tls-certificates expect."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
           "-nodes", "-days", "2"]
    ca_cert, ca_key = (os.path.join(pki, n) for n in ("ca-cert.pem",
                                                      "ca-key.pem"))
    check(program("openssl") + ["req", "-x509"] + key + [
        "-subj", "/CN=sockboost-bench-ca",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        "-keyout", ca_key, "-out", ca_cert])
    for who in ("server", "client"):
        check(program("openssl") + ["req", "-x509"] + key + [
            "-subj", "/CN=sockboost-bench-" + who,
            "-CA", ca_cert, "-CAkey", ca_key,
            "-addext", "basicConstraints=critical,CA:FALSE",
            "-addext", "keyUsage=critical,digitalSignature",
            "-addext", "extendedKeyUsage=%sAuth" % who,
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", os.path.join(pki, who + "-key.pem"),
            "-out", os.path.join(pki, who + "-cert.pem")])


def check(cmd):
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])
        raise RunError("%s: %s" % (os.path.basename(cmd[0]), last[-1]))
