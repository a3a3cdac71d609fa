# SPDX-License-Identifier: MIT
"""Running the measured commands and the servers they talk to."""

import json
import os
import resource
import signal
import socket
import subprocess
import time


class RunError(Exception):
    """One run failed; the bench records it and goes on."""


class Skip(Exception):
    """A workload cannot run here; the reason is reported."""


def uses_library(config):
    """Whether a configuration preloads the library: "default" (the
    program as it is), "reference" (another server, as it is) and "host"
    (the program as it is, sockboost host on) do not; "library" (its
    defaults) and a buffer size do."""
    return config not in ("default", "reference", "host")


def config_env(config, library, logdir):
    """Environment for one configuration: the library preloaded when the
    configuration uses it, with SOCKBOOST_SNDBUF=config for a buffer size,
    logging each socket it tunes into LOGDIR so that a run where it did
    nothing shows.  Anything SOCKBOOST_ in the caller's environment and
    any other copy of the library in LD_PRELOAD are dropped."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOCKBOOST_")}
    kept = [p for p in env.get("LD_PRELOAD", "").split(":")
            if p and os.path.basename(p) != "libsockboost.so"]
    if uses_library(config):
        kept.append(library)
        if config != "library":
            env["SOCKBOOST_SNDBUF"] = config
        env["SOCKBOOST_DEBUG"] = "2"
        env["SOCKBOOST_LOG_FILE"] = os.path.join(logdir, "sb-%p.log")
    if kept:
        env["LD_PRELOAD"] = ":".join(kept)
    else:
        env.pop("LD_PRELOAD", None)
    return env


def run_command(cmd, env, timeout=900):
    """Run CMD to completion; return (stdout, wall seconds)."""
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunError("%s timed out after %d s" % (cmd[0], timeout))
    seconds = time.monotonic() - t0
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
        raise RunError("%s: %s" % (os.path.basename(cmd[0]), last))
    return r.stdout, seconds


def last_json(text):
    """The JSON object a program printed (after any chatter)."""
    start = text.find("{")
    if start < 0:
        raise RunError("no JSON in output: %r" % text[:200])
    try:
        return json.loads(text[start:])
    except json.JSONDecodeError:
        for line in reversed(text.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RunError("bad JSON in output: %r" % text[:200])


class Server:
    """A server started in the background, ready once PIDFILE exists, and
    stopped (and reaped, so its CPU time counts) on exit."""

    def __init__(self, cmd, env, ctx):
        self.cmd, self.env, self.pidfile = cmd, env, ctx.pidfile
        self.log = open(os.path.join(ctx.tmpdir, "server.log"), "w+")
        self.stale = [ctx.pidfile, ctx.sock]
        self.proc = None

    def __enter__(self):
        # Not every server removes its socket when stopped (nbdkit).
        for path in self.stale:
            if os.path.lexists(path):
                os.unlink(path)
        self.proc = subprocess.Popen(self.cmd, env=self.env,
                                     stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 20
        while not (os.path.exists(self.pidfile)
                   and os.path.getsize(self.pidfile) > 0):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                self.log.seek(0)
                why = self.log.read().strip().splitlines() or ["not ready"]
                raise RunError("%s: %s" % (os.path.basename(self.cmd[0]),
                                           why[-1]))
            time.sleep(0.01)
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __exit__(self, *exc):
        self.stop()
        self.log.close()


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime, ru.ru_stime
