# SPDX-License-Identifier: MIT
"""Workloads over unix sockets, where the library's send buffer counts,
and the cost of the library on calls it does not speed up.

Each workload function takes the options and returns its cases:
(case name, metric, configurations, function(config, ctx) -> result
dict with seconds, bytes, value and optional sndbuf, reads_per_reply).
"""

from sockboostlib.measure.ceiling import socketpair_run
from sockboostlib.measure.procs import Server, last_json, run_command
from .programs import need, need_library, program


def sweep(args):
    """The buffer sizes a unix workload runs with."""
    need_library()
    return args.sizes


def socketpair_cases(args):
    need("sb-socketpair-bench")

    # The reference sets SO_SNDBUF itself, without the library: it is the
    # ceiling, and it also shows what a buffer below the default costs
    # (the library never lowers one).
    def run(qd):
        def one(config, ctx):
            j = socketpair_run(ctx.args.data_size, qd, None
                               if config == "default" else config)
            return {"seconds": j["seconds"], "bytes": j["bytes"],
                    "value": j["throughput"], "sndbuf": j["sndbuf"],
                    "reads_per_reply": j["reads_per_reply"]}
        return one
    return [("qd %d" % qd, "throughput", args.sizes, run(qd)) for qd in (1, 4)]


def sbnbd_cases(args):
    need("sbnbd-server", "sbnbd-client")
    configs = sweep(args)

    def run(direction, qd):
        def one(config, ctx):
            env = ctx.env(config)
            size = str(ctx.args.data_size)
            backend = ("pattern:" if direction == "read" else "null:") + size
            server = program("sbnbd-server") + [
                "--pidfile", ctx.pidfile, "-U", ctx.sock, backend]
            uri = "nbd+unix:///?socket=" + ctx.sock
            client = program("sbnbd-client") + [direction] \
                + (["pattern"] if direction == "write" else []) \
                + ["--request-size", "2M", "--queue-depth", str(qd),
                   "--json", uri]
            with Server(server, env, ctx):
                out, _ = run_command(client, env)
            j = last_json(out)
            return {"seconds": j["seconds"], "bytes": j["bytes"],
                    "value": j["bytes"] / j["seconds"]}
        return one
    return [("%s qd %d" % (d, qd), "throughput", configs, run(d, qd))
            for d in ("read", "write") for qd in (1, 4)]


def qemu_cases(args):
    need("qemu-nbd", "qemu-img")
    configs = sweep(args)

    def read(config, ctx):
        env, size = ctx.env(config), ctx.args.data_size
        server = program("qemu-nbd") + [
            "-k", ctx.sock, "-f", "raw", "-r", "-t",
            "--pid-file", ctx.pidfile, ctx.data_file()]
        convert = program("qemu-img") + [
            "convert", "-W", "-n", "-f", "raw",
            "nbd+unix:///?socket=" + ctx.sock, "--target-image-opts",
            "driver=null-co,size=%d" % size]
        with Server(server, env, ctx):
            _, secs = run_command(convert, env)
        return {"seconds": secs, "bytes": size, "value": size / secs}

    def write(config, ctx):
        env, size = ctx.env(config), ctx.args.data_size
        server = program("qemu-nbd") + [
            "-k", ctx.sock, "-t", "--pid-file", ctx.pidfile,
            "--image-opts", "driver=null-co,size=%d" % size]
        convert = program("qemu-img") + [
            "convert", "-W", "-n", "-f", "raw", ctx.data_file(),
            "-O", "raw", "nbd+unix:///?socket=" + ctx.sock]
        with Server(server, env, ctx):
            _, secs = run_command(convert, env)
        return {"seconds": secs, "bytes": size, "value": size / secs}
    return [("qemu-img convert from qemu-nbd", "throughput", configs, read),
            ("qemu-img convert into qemu-nbd", "throughput", configs, write)]


def nbdcopy_cases(args):
    need("nbdcopy", "qemu-nbd", "nbdkit")
    configs = sweep(args)

    def server_cmd(kind, ctx):
        if kind == "qemu-nbd":
            return program("qemu-nbd") + [
                "-k", ctx.sock, "-f", "raw", "-r", "-t", "-e", "8",
                "--pid-file", ctx.pidfile, ctx.data_file()]
        return program("nbdkit") + [
            "-f", "-r", "-U", ctx.sock, "-P", ctx.pidfile,
            "file", ctx.data_file()]

    def run(kind, conns):
        def one(config, ctx):
            env, size = ctx.env(config), ctx.args.data_size
            copy = program("nbdcopy") + [
                "--connections=%d" % conns,
                "nbd+unix:///?socket=" + ctx.sock, "null:"]
            with Server(server_cmd(kind, ctx), env, ctx):
                _, secs = run_command(copy, env)
            return {"seconds": secs, "bytes": size, "value": size / secs}
        return one
    return [("from %s, %d conn" % (k, c), "throughput", configs, run(k, c))
            for k in ("qemu-nbd", "nbdkit") for c in (1, 4)]


def overhead_cases(args):
    need("sb-overhead-bench")
    need_library()
    count = 200000 if args.quick else 2000000

    def run(mode):
        def one(config, ctx):
            out, _ = run_command(program("sb-overhead-bench") + [
                "--json", "--count", str(count), mode], ctx.env(config))
            j = last_json(out)
            return {"seconds": j["seconds"], "bytes": count,
                    "value": j["ns_per_call"]}
        return one
    return [("1-byte write() to /dev/null", "ns_per_call",
             ["default", "library"], run("devnull")),
            ("1-byte send() on a socketpair", "ns_per_call",
             ["default", "library"], run("socketpair"))]
