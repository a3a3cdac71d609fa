# SPDX-License-Identifier: MIT
"""Workloads over TCP loopback, where the library's TCP_NODELAY and
corking count (cases as in unix.py)."""

import os

from sockboostlib.measure.procs import Server, free_tcp_port, last_json
from sockboostlib.measure.procs import run_command
from .programs import need, need_library, program


# Each image: its name in the case names, and (served file, its format,
# the raw file the reference serves) from the context.
IMAGES = {
    "sparse raw image": lambda ctx: (ctx.sparse_image(), "raw",
                                     ctx.sparse_image()),
    "ext4 qcow2 image": lambda ctx: (ctx.fs_image()[0], "qcow2",
                                     ctx.fs_image()[1]),
}
COPIERS = ("qemu-img convert", "nbdcopy")


def tcp_cases(args):
    need_library()
    need("fio", "qemu-nbd", "qemu-img", "nbdcopy", "nbdkit", "mkfs.ext4",
         "openssl", "sbnbd-server", "sbnbd-client")
    # qemu-nbd as it is, qemu-nbd under the library, and a server that
    # sets TCP_NODELAY itself: what the library should bring qemu-nbd to.
    copies = [("%s, %s%s" % (copier, image, ", TLS" if tls else ""),
               "copy_time", ["default", "library", "reference"],
               image_copy(copier, image, tls))
              for copier in COPIERS for image in IMAGES
              for tls in (False, True)]
    configs = ["default", "library"]
    return copies + [
        ("fio 4K randread qd 1 from qemu-nbd", "iops", configs, fio_run),
        ("naive sbnbd-client 4K write qd 1", "latency", configs,
         naive_write_run)]


def image_copy(copier, image, tls):
    """A run: COPIER reads IMAGE over TCP (TLS if TLS) from qemu-nbd, or
    for the reference from nbdkit's file plugin; the library, when the
    configuration has it, in the server only."""
    def one(config, ctx):
        served, fmt, raw = IMAGES[image](ctx)
        pki = ctx.certificates() if tls else None
        port = free_tcp_port()
        if config == "reference":
            server = nbdkit_server(ctx, port, raw, pki)
        else:
            server = qemu_nbd_server(ctx, port, served, fmt, pki)
        size = os.path.getsize(raw)
        if copier == "nbdcopy":
            copy = nbdcopy_command(port, pki)
        else:
            copy = qemu_img_command(port, pki, size)
        with Server(server, ctx.env(config), ctx):
            _, secs = run_command(copy, ctx.env("default"))
        return {"seconds": secs, "bytes": size, "value": secs}

    def prepare(ctx):
        IMAGES[image](ctx)
        if tls:
            ctx.certificates()
    # Made before the first run's CPU time is counted.
    one.prepare = prepare
    return one


def qemu_nbd_server(ctx, port, image, fmt, pki):
    tls = [] if pki is None else [
        "--object", "tls-creds-x509,id=tls0,dir=%s,endpoint=server" % pki,
        "--tls-creds", "tls0"]
    return program("qemu-nbd") + [
        "-r", "-t", "-f", fmt, "-b", "127.0.0.1", "-p", str(port),
        "--pid-file", ctx.pidfile] + tls + [image]


def nbdkit_server(ctx, port, raw, pki):
    tls = [] if pki is None else ["--tls=require",
                                  "--tls-certificates=" + pki]
    return program("nbdkit") + [
        "-f", "-r", "-i", "127.0.0.1", "-p", str(port), "-P", ctx.pidfile
    ] + tls + ["file", raw]


def qemu_img_command(port, pki, size):
    """qemu-img convert from the export to a null target."""
    if pki is None:
        source = ["-f", "raw", "nbd://127.0.0.1:%d/" % port]
    else:
        source = ["--object",
                  "tls-creds-x509,id=tls0,dir=%s,endpoint=client" % pki,
                  "--image-opts",
                  "driver=nbd,host=127.0.0.1,port=%d,tls-creds=tls0" % port]
    return program("qemu-img") + ["convert"] + source + [
        "-n", "--target-image-opts", "driver=null-co,size=%d" % size]


def nbdcopy_command(port, pki):
    if pki is None:
        uri = "nbd://127.0.0.1:%d/" % port
    else:
        uri = "nbds://127.0.0.1:%d/?tls-certificates=%s" % (port, pki)
    return program("nbdcopy") + [uri, "null:"]


def fio_run(config, ctx):
    env, port = ctx.env(config), free_tcp_port()
    runtime = 1 if ctx.args.quick else 10
    server = program("qemu-nbd") + [
        "-p", str(port), "-b", "127.0.0.1", "-f", "raw", "-r", "-t",
        "--pid-file", ctx.pidfile, ctx.data_file()]
    fio = program("fio") + [
        "--name=randread", "--ioengine=nbd",
        "--uri=nbd://127.0.0.1:%d/" % port, "--rw=randread", "--bs=4k",
        "--iodepth=1", "--time_based", "--runtime=%d" % runtime,
        "--output-format=json"]
    with Server(server, env, ctx):
        out, secs = run_command(fio, env)
    r = last_json(out)["jobs"][0]["read"]
    return {"seconds": secs, "bytes": r["io_bytes"], "value": r["iops"]}


def naive_write_run(config, ctx):
    """Header and payload in two write()s with Nagle on: without the
    library each request waits for a delayed ACK.  Only our own programs
    run, so --root changes nothing here."""
    env, port = ctx.env(config), free_tcp_port()
    requests = 8 if ctx.args.quick else 100
    server = program("sbnbd-server") + [
        "--pidfile", ctx.pidfile, "-p", str(port),
        "null:%d" % (requests * 4096)]
    client = program("sbnbd-client") + [
        "write", "pattern", "--split-writes", "--no-nodelay",
        "--queue-depth", "1", "--request-size", "4K", "--json",
        "nbd://127.0.0.1:%d/" % port]
    with Server(server, env, ctx):
        out, _ = run_command(client, env)
    j = last_json(out)
    return {"seconds": j["seconds"], "bytes": j["bytes"],
            "value": j["seconds"] / j.get("requests", requests)}


naive_write_run.uses_roots = False
