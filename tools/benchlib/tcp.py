# SPDX-License-Identifier: MIT
"""Workloads over TCP loopback, where the library's TCP_NODELAY and
corking count (cases as in unix.py)."""

from .procs import Server, free_tcp_port, last_json, run_command
from .programs import need, need_library, program


def tcp_cases(args):
    need_library()
    need("fio", "qemu-nbd", "sbnbd-server", "sbnbd-client")
    configs = ["default", "library"]
    return [("fio 4K randread qd 1 from qemu-nbd", "iops", configs, fio_run),
            ("naive sbnbd-client 4K write qd 1", "latency", configs,
             naive_write_run)]


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
    library each request waits for a delayed ACK."""
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
