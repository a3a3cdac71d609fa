# SPDX-License-Identifier: MIT
"""sockboostlib.programs: which programs are NBD programs (the table
sb-config lists), and what the library changes for each by version,
from given decisions."""

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
                     "qemu-system-aarch64", "qemu-storage-daemon",
                     "nbd-client", "sbnbd-server", "sbnbd-client"):
            with self.subTest(name=name):
                self.assertTrue(programs.is_nbd_program(name))
        for name in ("qemu", "qemu-nbd.sh", "bash", "qemu-system", "nbd",
                     "qemu-storage-da", "sbnbd"):
            with self.subTest(name=name):
                self.assertFalse(programs.is_nbd_program(name))

    def test_kinds(self):
        self.assertEqual(programs.entry_of("qemu-system-x86_64"),
                         programs.Entry("qemu-system-*", "qemu-server-client"))
        self.assertEqual(programs.entry_of("qemu-storage-daemon").kind,
                         "qemu-server-client")
        self.assertEqual(programs.entry_of("nbdinfo").kind, "libnbd")

    def test_every_kind_has_a_rule_and_every_rule_a_kind(self):
        self.assertEqual({e.kind for e in programs.table()},
                         set(programs.KINDS))

    def test_an_entry_matches_whole_names_or_by_its_prefix(self):
        exact = programs.Entry("qemu-nbd", "qemu-server")
        self.assertTrue(exact.matches("qemu-nbd"))
        self.assertFalse(exact.matches("qemu-nbdx"))
        self.assertFalse(exact.matches("qemu-nb"))
        prefix = programs.Entry("sbnbd-*", "sbnbd")
        self.assertTrue(prefix.matches("sbnbd-server"))
        self.assertFalse(prefix.matches("sbnbd"))

    def test_older_is_numeric_dot_by_dot(self):
        self.assertTrue(programs.older("7.2.22", "8.0"))
        self.assertTrue(programs.older("10.0", "10.1"))
        self.assertFalse(programs.older("10.1", "10.1"))
        self.assertFalse(programs.older("10.10", "10.9"))
        self.assertTrue(programs.older("1.22", "1.23"))


class Changes(unittest.TestCase):
    def test_unknown_version(self):
        self.assertEqual(FixedChanges(decided()).of("qemu-server", None),
                         ("unknown: its version is unknown",) * 2)

    def test_qemu_before_and_after_its_thresholds(self):
        c = FixedChanges(decided())
        unix, tcp = c.of("qemu-server", "7.2.22")
        self.assertTrue(unix.startswith("raises the send buffer to tb "
                                        "4194304"))
        self.assertTrue(tcp.startswith("sets TCP_NODELAY"))
        unix, tcp = c.of("qemu-server", "8.0")
        self.assertTrue(tcp.startswith("nothing: QEMU 8.0 and later cork"))
        self.assertTrue(c.of("qemu-server", "10.1")[0].startswith(
            "nothing: QEMU 10.1 and later set 2 MiB"))

    def test_qemu_io_is_a_client_as_qemu_img_is(self):
        self.assertEqual(programs.entry_of("qemu-io").kind,
                         programs.entry_of("qemu-img").kind)
        c = FixedChanges(decided())
        self.assertTrue(c.of("qemu-client", "7.2")[1].startswith("nothing"))

    def test_the_system_emulator_serves_and_is_a_client(self):
        tcp = FixedChanges(decided()).of("qemu-server-client", "7.2")[1]
        self.assertIn("the NBD sockets its server accepts", tcp)
        self.assertIn("nothing for its NBD client", tcp)

    def test_what_the_settings_turn_off(self):
        c = FixedChanges(decided(request=0, nodelay=False, cork=False))
        self.assertEqual(c.of("qemu-server", "7.2")[0],
                         "nothing: SOCKBOOST_SNDBUF is off: QEMU before 10.1 "
                         "leaves the default")
        self.assertTrue(c.of("qemu-server", "7.2")[1].startswith(
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
        self.assertIn("before 1.24 leaves the default", c.of("libnbd",
                                                             "1.14.2")[0])
        self.assertTrue(c.of("libnbd", "1.23.1")[0].startswith(
            "not checked for libnbd 1.23.1"))
        self.assertEqual(c.of("libnbd", "1.24.0")[0],
                         "nothing: libnbd 1.24 and later set 2 MiB "
                         "themselves")
        bigger = FixedChanges(decided(), dataclasses.replace(own,
                                                             tb=8 << 20))
        self.assertTrue(bigger.of("libnbd", "1.24.0")[0].startswith(
            "raises the send buffer to tb 8388608"))

    def test_nbd_client_hands_its_socket_to_the_kernel(self):
        c = FixedChanges(decided())
        unix, tcp = c.of("nbd-client", "3.24")
        self.assertEqual(unix, "raises the send buffer to tb 4194304: "
                         "nbd-client leaves the default, and the kernel's "
                         "NBD client sends on that socket")
        self.assertEqual(tcp, "nothing: nbd-client sets TCP_NODELAY itself")
        for said in c.of("nbd-client", "3.26"):
            self.assertTrue(said.endswith("(as checked on 3.24)"), said)

    def test_sbnbd_leaves_only_its_naive_switches(self):
        unix, tcp = FixedChanges(decided()).of("sbnbd", "0.1.0")
        self.assertTrue(unix.startswith("raises the send buffer to tb "
                                        "4194304"))
        self.assertTrue(tcp.startswith("nothing: "))
        self.assertIn("--no-nodelay", tcp)

    def test_nbd_server_outside_the_version_checked(self):
        c = FixedChanges(decided())
        self.assertTrue(c.of("nbd-server", "3.24")[1].startswith(
            "corks each reply"))
        self.assertTrue(c.of("nbd-server", "3.25")[1].endswith(
            "(as checked on 3.24)"))


if __name__ == "__main__":
    unittest.main()
