# SPDX-License-Identifier: MIT
"""sockboostlib.programs: which programs are NBD programs, and what the
library changes for each by version, from given decisions."""

import dataclasses
import unittest

from sockboostlib import decisions, programs


def decided(**fields):
    """Decisions as sb-config would give them: the defaults of a host
    where 2 MiB is granted, with FIELDS changed."""
    values = dict(version="0.1.0", settings="", sndbuf=2 << 20, nodelay=True,
                  cork=True, scope="all", wmem_default=212992,
                  wmem_max=4 << 20, can_force=False, before=212992,
                  request=2 << 20, option="SO_SNDBUF", clipped=False,
                  tb=4 << 20, warnings_printed=True, warnings=[], invalid=[])
    values.update(fields)
    return decisions.Decisions(**values)


class FixedChanges(programs.Changes):
    """Changes from DEFAULT and, for a socket the program set itself,
    OWN: no sb-config asked."""

    def __init__(self, default, own=None):
        self.default, self.after_own = default, own


class Names(unittest.TestCase):
    def test_nbd_programs(self):
        for name in ("qemu-nbd", "qemu-img", "qemu-io", "nbdkit", "nbdcopy",
                     "nbdinfo", "nbd-server", "qemu-system-x86_64",
                     "qemu-system-aarch64"):
            with self.subTest(name=name):
                self.assertTrue(programs.is_nbd_program(name))
        for name in ("qemu", "qemu-nbd.sh", "bash", "qemu-system", "nbd"):
            with self.subTest(name=name):
                self.assertFalse(programs.is_nbd_program(name))

    def test_older_is_numeric_dot_by_dot(self):
        self.assertTrue(programs.older("7.2.22", "8.0"))
        self.assertTrue(programs.older("10.0", "10.1"))
        self.assertFalse(programs.older("10.1", "10.1"))
        self.assertFalse(programs.older("10.10", "10.9"))
        self.assertTrue(programs.older("1.22", "1.23"))


class Changes(unittest.TestCase):
    def test_unknown_version(self):
        self.assertEqual(FixedChanges(decided()).of("qemu-nbd", None),
                         ("unknown: its version is unknown",) * 2)

    def test_qemu_before_and_after_its_thresholds(self):
        c = FixedChanges(decided())
        unix, tcp = c.of("qemu-nbd", "7.2.22")
        self.assertTrue(unix.startswith("raises the send buffer to tb "
                                        "4194304"))
        self.assertTrue(tcp.startswith("sets TCP_NODELAY"))
        unix, tcp = c.of("qemu-nbd", "8.0")
        self.assertTrue(tcp.startswith("nothing: QEMU 8.0 and later cork"))
        self.assertTrue(c.of("qemu-nbd", "10.1")[0].startswith(
            "nothing: QEMU 10.1 and later set 2 MiB"))

    def test_qemu_io_is_a_client_as_qemu_img_is(self):
        c = FixedChanges(decided())
        for version in ("7.2.22", "11.1.0"):
            with self.subTest(version=version):
                self.assertEqual(c.of("qemu-io", version),
                                 c.of("qemu-img", version))
        self.assertTrue(c.of("qemu-io", "7.2")[1].startswith("nothing"))

    def test_the_system_emulator_serves_and_is_a_client(self):
        tcp = FixedChanges(decided()).of("qemu-system-x86_64", "7.2")[1]
        self.assertIn("the NBD sockets its server accepts", tcp)
        self.assertIn("nothing for its NBD client", tcp)

    def test_what_the_settings_turn_off(self):
        c = FixedChanges(decided(request=0, nodelay=False, cork=False))
        self.assertEqual(c.of("qemu-nbd", "7.2")[0],
                         "nothing: SOCKBOOST_SNDBUF is off: QEMU before 10.1 "
                         "leaves the default")
        self.assertTrue(c.of("qemu-nbd", "7.2")[1].startswith(
            "nothing, as SOCKBOOST_NODELAY=0 asks"))
        self.assertTrue(c.of("nbd-server", "3.24")[1].startswith(
            "nothing, as SOCKBOOST_CORK=off asks"))

    def test_a_request_not_above_the_default(self):
        c = FixedChanges(decided(tb=212992))
        self.assertTrue(c.of("nbdkit", "1.32")[0].startswith(
            "nothing: the request is not above the default"))

    def test_libnbd_by_version(self):
        own = decided(before=4 << 20, tb=4 << 20)
        c = FixedChanges(decided(), own)
        self.assertIn("before 1.24 leaves the default", c.of("nbdcopy",
                                                             "1.14.2")[0])
        self.assertTrue(c.of("nbdinfo", "1.23.1")[0].startswith(
            "not checked for libnbd 1.23.1"))
        self.assertEqual(c.of("nbdcopy", "1.24.0")[0],
                         "nothing: libnbd 1.24 and later set 2 MiB "
                         "themselves")
        bigger = FixedChanges(decided(), dataclasses.replace(own,
                                                             tb=8 << 20))
        self.assertTrue(bigger.of("nbdcopy", "1.24.0")[0].startswith(
            "raises the send buffer to tb 8388608"))

    def test_nbd_server_outside_the_version_checked(self):
        c = FixedChanges(decided())
        self.assertTrue(c.of("nbd-server", "3.24")[1].startswith(
            "corks each reply"))
        self.assertTrue(c.of("nbd-server", "3.25")[1].endswith(
            "(as checked on 3.24)"))


if __name__ == "__main__":
    unittest.main()
