# SPDX-License-Identifier: MIT
"""Disk transfers between QEMU system emulators over NBD, as libvirt
drives them: storage migration (push: the destination serves its disk
writable, the source mirrors into it) and backup (pull: the source serves
its disk read-only, and another QEMU mirrors from it or qemu-img copies
it).  Each QEMU runs with no machine (-M none) and is driven over QMP
(qmp.py); its NBD server listens on a port of 127.0.0.1 the kernel
picks, read back from /proc, so parallel runs never collide."""

import ctypes
import os
import signal
import subprocess
import time

from sockboostlib.measure.procs import RunError, run_command
from sockboostlib.process import Process
from .qmp import Qmp, QmpError

# How long a QEMU may take to start or to quit, and a transfer to end:
# bounds on a hang, not on the speed.
START_TIMEOUT = 20
QUIT_TIMEOUT = 10
TRANSFER_TIMEOUT = 900
QEMU_ARGS = ["-M", "none", "-nodefaults", "-display", "none",
             "-accel", "tcg"]
# Where the NBD servers listen and the clients connect.
ADDRESS = "127.0.0.1"
EXPORT = "disk"
JOB = "copy"
TLS_ID = "tls0"


class Setup:
    """What the processes of one transfer share.  QEMU and QEMU_IMG:
    the commands (argv prefixes, e.g. chroot ROOT PATH) that run
    qemu-system-x86_64 and qemu-img; ENV: the QEMUs' environment (the
    library or not); CLIENT_ENV: qemu-img's; TMPDIR: for QMP sockets
    and logs; PKI: a tls-creds-x509 directory for TLS, or None."""

    def __init__(self, qemu, qemu_img, env, client_env, tmpdir, pki=None):
        self.qemu, self.qemu_img = qemu, qemu_img
        self.env, self.client_env = env, client_env
        self.tmpdir, self.pki = tmpdir, pki


class Qemu:
    """One QEMU system emulator under QMP, for a with block: started on
    entry, asked to quit on exit, killed if it does not, always reaped."""

    def __init__(self, name, setup):
        self.name, self.setup = name, setup
        self.qmp_path = os.path.join(setup.tmpdir, name + ".qmp")
        self.log_path = os.path.join(setup.tmpdir, name + ".log")
        self.proc = self.qmp = None

    def __enter__(self):
        if os.path.lexists(self.qmp_path):
            os.unlink(self.qmp_path)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                self.setup.qemu + QEMU_ARGS + [
                    "-qmp", "unix:%s,server=on,wait=off" % self.qmp_path],
                env=self.setup.env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, preexec_fn=end_with_parent)
        try:
            self.qmp = Qmp(self.qmp_path, START_TIMEOUT,
                           alive=lambda: self.proc.poll() is None)
        except QmpError as e:
            self.stop()
            raise self.error(e)
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.qmp is not None:
            try:
                self.qmp.command("quit", timeout=QUIT_TIMEOUT)
            except QmpError:
                pass  # It may close the socket before it replies.
            self.qmp.close()
            self.qmp = None
        elif self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # Never reached over QMP.
        if self.proc is not None:
            try:
                self.proc.wait(QUIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if os.path.lexists(self.qmp_path):
            os.unlink(self.qmp_path)

    def error(self, e):
        """A RunError saying which QEMU failed, with its last log line."""
        try:
            with open(self.log_path, errors="replace") as f:
                lines = f.read().strip().splitlines()
        except OSError:
            lines = []
        tail = "; its log: %s" % lines[-1] if lines else ""
        return RunError("%s QEMU: %s%s" % (self.name, e, tail))

    def command(self, name, arguments=None, timeout=30):
        try:
            return self.qmp.command(name, arguments, timeout)
        except QmpError as e:
            raise self.error(e)

    def wait_event(self, names, timeout, match=lambda data: True):
        try:
            return self.qmp.wait_event(names, timeout, match)
        except QmpError as e:
            raise self.error(e)

    def add_tls(self, endpoint):
        """The TLS credentials (ENDPOINT: server or client), if TLS."""
        if self.setup.pki is not None:
            self.command("object-add", {
                "qom-type": "tls-creds-x509", "id": TLS_ID,
                "dir": self.setup.pki, "endpoint": endpoint})

    def serve(self, node, writable):
        """Export NODE over NBD on ADDRESS; the port it listens on."""
        addr = {"type": "inet", "data": {"host": ADDRESS, "port": "0"}}
        start = {"addr": addr}
        if self.setup.pki is not None:
            start["tls-creds"] = TLS_ID
        self.command("nbd-server-start", start)
        # What libvirt 9.0 sends to QEMU 5.2 and later; nbd-server-add
        # makes the same export.
        self.command("block-export-add", {
            "type": "nbd", "id": EXPORT, "node-name": node, "name": EXPORT,
            "writable": writable})
        return listening_port(self.proc.pid)


def end_with_parent():
    """In the child before exec: SIGTERM when the process that started
    it dies, so that no QEMU outlives a benchmark or test killed before
    it could stop them (PR_SET_PDEATHSIG survives exec)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM,
                                            0, 0, 0)


def listening_port(pid):
    """The TCP port process PID listens on (its one listening socket):
    its socket inodes matched against its network namespace's table."""
    with Process(pid) as p:
        inodes = p.socket_fds()
        table = p.text("net/tcp")
    for line in table.splitlines()[1:]:
        fields = line.split()
        # st 0A: TCP_LISTEN; local address HEXIP:HEXPORT.
        if fields[3] == "0A" and int(fields[9]) in inodes:
            return int(fields[1].split(":")[1], 16)
    raise RunError("QEMU (pid %d) listens on no TCP port" % pid)


def image_node(name, path, fmt, read_only=False):
    return {"driver": fmt, "node-name": name, "read-only": read_only,
            "file": {"driver": "file", "filename": path}}


def nbd_node(name, port, setup, read_only=False):
    node = {"driver": "nbd", "node-name": name, "export": EXPORT,
            "read-only": read_only,
            "server": {"type": "inet", "host": ADDRESS, "port": str(port)}}
    if setup.pki is not None:
        node["tls-creds"] = TLS_ID
    return node


def mirror_until_ready(qemu, device, target):
    """Mirror DEVICE into TARGET (sync full) until the job is ready:
    everything copied, only new writes left to follow."""
    qemu.command("blockdev-mirror", {"job-id": JOB, "device": device,
                                     "target": target, "sync": "full"})
    event = qemu.wait_event(
        ("BLOCK_JOB_READY", "BLOCK_JOB_COMPLETED", "BLOCK_JOB_CANCELLED"),
        TRANSFER_TIMEOUT, lambda data: data.get("device") == JOB)
    if event["event"] != "BLOCK_JOB_READY":
        why = event.get("data", {}).get("error", event["event"])
        raise qemu.error("the mirror ended before it was ready: %s" % why)


def finish_mirror(qemu):
    """End a ready mirror leaving the copy as it is, as libvirt does at
    the end of a storage migration (block-job-cancel)."""
    qemu.command("block-job-cancel", {"device": JOB})
    event = qemu.wait_event(("BLOCK_JOB_COMPLETED", "BLOCK_JOB_CANCELLED"),
                            QUIT_TIMEOUT, lambda data: data.get("device") == JOB)
    if "error" in event.get("data", {}):
        raise qemu.error("the mirror failed: %s" % event["data"]["error"])


def push(setup, source, target, fmt):
    """Storage migration: the destination serves TARGET (an image of
    SOURCE's format and size) writable; the source mirrors SOURCE into
    it.  Seconds from the source's connection to the ready job."""
    with Qemu("destination", setup) as dst, Qemu("source", setup) as src:
        dst.add_tls("server")
        src.add_tls("client")
        dst.command("blockdev-add", image_node("disk", target, fmt))
        port = dst.serve("disk", writable=True)
        src.command("blockdev-add", image_node("disk", source, fmt))
        start = time.monotonic()
        src.command("blockdev-add", nbd_node("target", port, setup))
        mirror_until_ready(src, "disk", "target")
        seconds = time.monotonic() - start
        finish_mirror(src)
    return seconds


def pull_mirror(setup, source, target, fmt):
    """Backup pull: the source serves SOURCE read-only; the destination
    mirrors the export into the raw image TARGET (of SOURCE's size).
    Seconds from the destination's connection to the ready job."""
    with Qemu("source", setup) as src, Qemu("destination", setup) as dst:
        src.add_tls("server")
        dst.add_tls("client")
        src.command("blockdev-add", image_node("disk", source, fmt, True))
        port = src.serve("disk", writable=False)
        dst.command("blockdev-add", image_node("backup", target, "raw"))
        start = time.monotonic()
        dst.command("blockdev-add", nbd_node("source", port, setup, True))
        mirror_until_ready(dst, "source", "backup")
        seconds = time.monotonic() - start
        finish_mirror(dst)
    return seconds


def pull_by_program(setup, source, target, fmt, program_args):
    """Backup pull by a backup program: the source serves SOURCE
    read-only; qemu-img copies the export to the raw TARGET with the
    arguments PROGRAM_ARGS(tls, opts) gives (tls: the object arguments
    for TLS, or none; opts: the export for --image-opts).  Seconds of
    the copy."""
    with Qemu("source", setup) as src:
        src.add_tls("server")
        src.command("blockdev-add", image_node("disk", source, fmt, True))
        port = src.serve("disk", writable=False)
        opts = "driver=nbd,host=%s,port=%d,export=%s" % (ADDRESS, port,
                                                          EXPORT)
        tls = []
        if setup.pki is not None:
            tls = ["--object", "tls-creds-x509,id=%s,dir=%s,endpoint=client"
                   % (TLS_ID, setup.pki)]
            opts += ",tls-creds=" + TLS_ID
        _, seconds = run_command(setup.qemu_img + program_args(tls, opts),
                                 setup.client_env, TRANSFER_TIMEOUT)
    return seconds


def pull_convert(setup, source, target, fmt):
    """A pull by qemu-img convert: it reads only the data extents, with
    a READ and the BLOCK_STATUS of the next extent in flight."""
    return pull_by_program(
        setup, source, target, fmt, lambda tls, opts: ["convert"] + tls + [
            "--image-opts", opts, "-O", "raw", target])


# pull-dd's READ: one stride of the fragmented images (4 KiB of data
# every 128 KiB, the benchmark's and the tests'), so that each reply is
# a data chunk then a hole chunk.
DD_READ_SIZE = 128 << 10


def pull_dd(setup, source, target, fmt):
    """A pull by qemu-img dd: one READ of DD_READ_SIZE bytes in flight at
    a time, as a simple backup program reads."""
    return pull_by_program(
        setup, source, target, fmt, lambda tls, opts: ["dd"] + tls + [
            "--image-opts", "-O", "raw", "bs=%d" % DD_READ_SIZE,
            "if=" + opts, "of=" + target])


# Each direction: its function and the format its target is made in
# (None: the source's).
TRANSFERS = {"push": (push, None), "pull-mirror": (pull_mirror, "raw"),
             "pull-convert": (pull_convert, "raw"),
             "pull-dd": (pull_dd, "raw")}


def make_target(qemu_img, path, fmt, size):
    """An empty image of SIZE bytes in format FMT at PATH, replacing
    what was there (a raw file stays sparse)."""
    if fmt == "raw":
        with open(path, "wb") as f:
            f.truncate(size)
        return
    run_command(qemu_img + ["create", "-q", "-f", fmt, path, str(size)],
                None, START_TIMEOUT)


def compare(qemu_img, source, fmt, target, target_fmt):
    """RunError unless TARGET holds the same disk as SOURCE."""
    r = subprocess.run(qemu_img + ["compare", "-f", fmt, "-F", target_fmt,
                                   source, target],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=TRANSFER_TIMEOUT)
    if r.returncode != 0:
        raise RunError("qemu-img compare: %s" % r.stdout.strip())


def transfer(direction, setup, source, fmt, size, target):
    """Run DIRECTION (a TRANSFERS key) from SOURCE (format FMT, SIZE
    bytes) into a fresh TARGET, check that the copy is identical, and
    return the transfer's seconds."""
    fn, target_fmt = TRANSFERS[direction]
    target_fmt = target_fmt or fmt
    make_target(setup.qemu_img, target, target_fmt, size)
    seconds = fn(setup, source, target, fmt)
    compare(setup.qemu_img, source, fmt, target, target_fmt)
    return seconds
