# SPDX-License-Identifier: MIT
"""sockboostlib.libvirtqemu: a domain's QEMU is the process that holds
libvirt's pid file locked, cross-checked against the file, the domain's
emulator and uuid; a decoy with the uuid is never named."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from sockboostlib import libvirtqemu as lq
from sockboostlib.command import Failure

UUID = "409e9cb0-89a1-4da0-be26-9519d43ae50b"
# A stand-in for QEMU: it writes its pid to the file (or another
# number), locks it, and says so.
HOLDER = """import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
if sys.argv[2] == "lock":
    fcntl.lockf(fd, fcntl.LOCK_EX)
os.write(fd, b"%d\\n" % (os.getpid() + int(sys.argv[3])))
print("ready", flush=True)
time.sleep(30)
"""
EMULATOR = os.path.realpath(sys.executable)


class StateDirectory(unittest.TestCase):
    def test_connections(self):
        env = {"XDG_RUNTIME_DIR": "/run/user/1000"}
        for uri, where in (
                ("qemu:///system", "/run/libvirt/qemu"),
                ("qemu+unix:///system", "/run/libvirt/qemu"),
                ("qemu+unix:///system?socket=/t/run/libvirt/libvirt-sock",
                 "/t/run/libvirt/qemu"),
                ("qemu:///session", "/run/user/1000/libvirt/qemu/run"),
                ("qemu+unix:///session?socket=/r/libvirt/virtqemud-sock",
                 "/r/libvirt/qemu/run")):
            with self.subTest(uri=uri):
                self.assertEqual(lq.state_dir(uri, env), where)

    def test_others_are_not_guessed(self):
        for uri in ("xen:///system", "qemu+ssh://host/system",
                    "qemu+tcp:///system", "qemu:///embed?root=/x", "test:///"):
            with self.subTest(uri=uri):
                with self.assertRaises(Failure):
                    lq.state_dir(uri, {})


class Locks(unittest.TestCase):
    def test_the_posix_write_lock_on_the_file(self):
        with tempfile.NamedTemporaryFile() as f:
            st = os.fstat(f.fileno())
            dev = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev),
                                    st.st_ino)
            locks = "\n".join([
                "1: POSIX  ADVISORY  WRITE 9190 %s 0 0" % dev,
                "1: -> POSIX  ADVISORY  WRITE 9191 %s 0 0" % dev,
                "2: POSIX  ADVISORY  READ 9192 %s 0 EOF" % dev,
                "3: OFDLCK ADVISORY  WRITE -1 %s 0 EOF" % dev,
                "4: POSIX  ADVISORY  WRITE 9193 00:01:1 0 EOF",
                "5: FLOCK  ADVISORY  WRITE 9194 %s 0 EOF" % dev.upper(),
                "garbage"])
            self.assertEqual(lq.lock_holders(f.fileno(), locks), [9190])


class FindQemu(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.pidfile = os.path.join(self.dir, "vm.pid")

    def process(self, *args, lock="lock", offset=0):
        """A stand-in QEMU with ARGS on its command line, once ready."""
        p = subprocess.Popen([sys.executable, "-c", HOLDER, self.pidfile,
                              lock, str(offset)] + list(args),
                             stdout=subprocess.PIPE)
        self.addCleanup(p.wait)
        self.addCleanup(p.kill)
        self.assertEqual(p.stdout.readline(), b"ready\n")
        return p.pid

    def find(self, uuid=UUID, emulator=EMULATOR):
        return lq.find_qemu(self.dir, "vm", uuid, emulator)

    def refused(self, why, **kw):
        with self.assertRaises(Failure) as e:
            self.find(**kw)
        self.assertRegex(str(e.exception), why)

    def test_the_holder_not_a_decoy_with_a_lower_pid(self):
        decoy = subprocess.Popen([sys.executable, "-c", "import time; "
                                  "time.sleep(30)", "-uuid", UUID])
        self.addCleanup(decoy.wait)
        self.addCleanup(decoy.kill)
        qemu = self.process("-uuid", UUID)
        self.assertEqual(self.find(), qemu)

    def test_the_holder_must_be_the_domains_qemu(self):
        qemu = self.process("-uuid", UUID)
        claim = "^pid %d holds libvirt's pid file but " % qemu
        self.refused(claim + "has not the domain's uuid x on its command "
                     "line$", uuid="x")
        self.refused(claim + "does not run the domain's emulator /bin/sh$",
                     emulator="/bin/sh")
        self.refused("^the domain's emulator /nonexistent is missing$",
                     emulator="/nonexistent")

    def test_the_file_must_name_the_holder(self):
        qemu = self.process("-uuid", UUID, offset=1)
        self.refused("^pid %d holds libvirt's pid file but is pid %d in its "
                     "namespace, and the file says %d$" % (qemu, qemu,
                                                            qemu + 1))

    def test_a_file_nobody_holds(self):
        self.process("-uuid", UUID, lock="none")
        self.refused("^libvirt's pid file %s is held by no process: its QEMU "
                     "should hold it$" % self.pidfile)

    def test_no_file(self):
        with self.assertRaises(lq.NotHere) as e:
            self.find()
        self.assertEqual(str(e.exception), "libvirt has no pid file %s"
                         % self.pidfile)

    def test_a_file_others_may_have_written(self):
        self.process("-uuid", UUID)
        os.chmod(self.dir, 0o777)
        self.refused("^libvirt's pid file is not to be trusted: %s may be "
                     "written by others$" % self.dir)

    def test_a_name_that_is_no_file_name(self):
        for name in ("../x", "", ".hidden"):
            with self.assertRaises(Failure):
                lq.find_qemu(self.dir, name, UUID, EMULATOR)


if __name__ == "__main__":
    unittest.main()
