# SPDX-License-Identifier: MIT
"""sockboostlib.process: a process asked about itself through one
descriptor of /proc/PID, its program opened, never named again; and
sockboostlib.capabilities, whether it may force a send buffer."""

import json
import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from sockboostlib import capabilities, programs
from sockboostlib.process import Process


def started(test, argv, final=None, **kw):
    """A child process running ARGV, once its command line is FINAL
    (what ARGV ends up running; default ARGV), killed at the end of
    TEST."""
    c = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kw)
    test.addCleanup(c.wait)
    test.addCleanup(c.kill)
    for _ in range(500):
        with Process(c.pid) as p:
            if p.cmdline() == (final or argv):
                return c
        time.sleep(0.01)
    test.fail("%s did not start" % argv)


class Itself(unittest.TestCase):
    def setUp(self):
        self.p = Process(os.getpid())
        self.addCleanup(self.p.close)

    def test_what_it_says_of_itself(self):
        with open("/proc/self/cmdline", "rb") as f:
            words = f.read().decode().split("\0")[:-1]
        self.assertEqual(self.p.cmdline(), words)
        self.assertEqual(self.p.uid(), os.geteuid())
        self.assertEqual(self.p.own_pid(), os.getpid())
        self.assertTrue(self.p.runs(sys.executable))
        self.assertFalse(self.p.runs("/bin/sh"))

    def test_a_mapped_file_by_identity(self):
        with tempfile.NamedTemporaryFile(suffix="libsockboost-x.so") as f:
            f.write(b"x" * 4096)
            f.flush()
            self.assertFalse(self.p.maps(f.name))
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            self.addCleanup(m.close)
            self.assertTrue(self.p.maps(f.name))
            self.assertEqual(self.p.library(), f.name)


class Others(unittest.TestCase):
    def test_its_words_are_data(self):
        name = "odd\nname\x1b[31m"
        c = started(self, [sys.executable, "-c", "import time; "
                           "time.sleep(30)", name],
                    env={"SOCKBOOST_X": "1\n2", "OTHER": "y"})
        with Process(c.pid) as p:
            self.assertEqual(p.cmdline()[-1], name)
            self.assertEqual(p.environment("SOCKBOOST_"), {"SOCKBOOST_X":
                                                           "1\n2"})

    def test_a_process_gone_is_never_another(self):
        c = started(self, ["sleep", "30"])
        p = Process(c.pid)
        self.addCleanup(p.close)
        c.kill()
        c.wait()
        # Its pid may be anyone's now: the descriptor still names it.
        with self.assertRaises(ProcessLookupError):
            p.cmdline()
        with self.assertRaises(FileNotFoundError):
            Process(c.pid)

    def test_its_program_is_the_file_it_runs(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        nbdkit = os.path.join(d, "nbdkit")
        shutil.copy(shutil.which("sleep"), nbdkit)
        c = started(self, [nbdkit, "30"])
        with Process(c.pid) as p:
            self.assertEqual(p.exe_name(), nbdkit)
            program = p.program(programs.Changes())
            self.assertEqual(program.version_source, programs.PRINTED)
            # Another file under its name: its own is no longer named.
            shutil.copy(nbdkit, nbdkit + ".new")
            os.replace(nbdkit + ".new", nbdkit)
            self.assertEqual(p.exe_name(), nbdkit + " (deleted)")
            self.assertIsNone(p.nbd_program())


# Run as pid 1 of a pid namespace of its own: a child is asked about,
# ends, and its pid is given to a second child holding sockets
# (ns_last_pid); what is asked of the first must not answer for the
# second.
PID_REUSE = """
import json, os, socket, sys
from sockboostlib.process import Process

def child(hold_sockets):
    ready, done = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        held = socket.socketpair() if hold_sockets else None
        os.write(ready[1], b"x")
        os.read(done[0], 1)
        os._exit(0)
    os.read(ready[0], 1)
    return pid

first = child(False)
p = Process(first)
os.kill(first, 9)
os.waitpid(first, 0)
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(first - 1))
second = child(True)
found = {"reused": second == first}
with Process(second) as q:
    found["second_sockets"] = len(q.sockets())
for name in ("sockets", "may_force"):
    try:
        found[name] = repr(getattr(p, name)())
    except OSError as e:
        found[name] = type(e).__name__
print(json.dumps(found))
"""


class PidReused(unittest.TestCase):
    def test_a_gone_process_never_answers_for_the_next_one(self):
        if os.geteuid() != 0 or not shutil.which("unshare"):
            self.skipTest("needs root and unshare for a pid namespace")
        tools = os.path.dirname(os.path.dirname(capabilities.__file__))
        r = subprocess.run(["unshare", "-p", "-f", "-m", "--mount-proc",
                            sys.executable, "-c", PID_REUSE],
                           env=dict(os.environ, PYTHONPATH=tools),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        found = json.loads(r.stdout)
        self.assertEqual(found, {"reused": True, "second_sockets": 2,
                                 "sockets": "ProcessLookupError",
                                 "may_force": "None"})


class MayForce(unittest.TestCase):
    """The kernel's test for CAP_NET_ADMIN over a network namespace."""

    def force(self, argv):
        c = started(self, argv + ["sleep", "30"], ["sleep", "30"])
        with Process(c.pid) as p:
            return p.may_force()

    def test_ours(self):
        with Process(os.getpid()) as p:
            ours = int(p.status_field("CapEff")[0], 16)
            self.assertEqual(p.may_force(), bool(ours >> 12 & 1))

    def test_dropped_or_in_a_namespace_of_its_own(self):
        with Process(os.getpid()) as p:
            ours = int(p.status_field("CapEff")[0], 16)
        if not ours >> 12 & 1 or not shutil.which("setpriv") or \
                subprocess.run(["unshare", "-U", "-r", "-n", "true"]
                               ).returncode:
            self.skipTest("needs CAP_NET_ADMIN, setpriv and user namespaces")
        self.assertTrue(self.force([]))
        self.assertFalse(self.force(["setpriv", "--inh-caps=-net_admin",
                                     "--bounding-set=-net_admin"]))
        # All capabilities in its own user namespace, but the network's
        # owner is ours; with a network of its own, it owns it.
        self.assertFalse(self.force(["unshare", "-U", "-r"]))
        self.assertTrue(self.force(["unshare", "-U", "-r", "-n"]))


if __name__ == "__main__":
    unittest.main()
