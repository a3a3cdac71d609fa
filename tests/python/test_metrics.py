# SPDX-License-Identifier: MIT
"""sockboostlib.metrics: the text format of host mode's counts, and the
file written so that no reader sees a part of it; hostmode's stall lines
for doctor."""

import os
import tempfile
import unittest

from sockboostlib import hostmode, metrics

ROW = {"program": "qemu-nbd", "uid": 0, "tcp_bind": 1, "tcp_connect": 0,
       "unix": 0, "stalls": 540, "stall_seconds": 23.25, "bytes_sent": 10,
       "bytes_received": 20, "connections": 3, "first_count": 1700000000}
STATUS = {"on": True, "observe": True, "counting": True,
          "tuned": [ROW, dict(ROW, uid=None, program='we"ird\\\nname',
                              stalls=1, first_count=None)],
          "processes": [dict(ROW, pid=7, comm="qemu-system-x86",
                             program="qemu-system-*", stalls=4),
                        dict(ROW, pid=8, comm="qemu-system-x86",
                             program="qemu-system-*", stalls=5),
                        dict(ROW, pid=9, comm="qemu-nbd", stalls=6)]}


class Exposition(unittest.TestCase):
    def setUp(self):
        self.text = metrics.exposition(STATUS, {7: "vm1", 8: "vm1"})
        self.lines = self.text.splitlines()

    def test_label_values_escaped(self):
        self.assertEqual(metrics.label_value('a"b\\c\nd'), 'a\\"b\\\\c\\nd')
        self.assertIn('sockboost_host_stalls_total{program="we\\"ird\\\\\\n'
                      'name",uid="others"} 1', self.lines)

    def test_label_values_utf8(self):
        self.assertEqual(metrics.label_value(b"vm\xff".decode(
            "utf-8", "surrogateescape")), "vm\ufffd")

    def test_counters_in_base_units(self):
        self.assertIn('sockboost_host_stalls_total{program="qemu-nbd",'
                      'uid="0"} 540', self.lines)
        self.assertIn('sockboost_host_stall_seconds_total{program='
                      '"qemu-nbd",uid="0"} 23.25', self.lines)
        self.assertIn("# TYPE sockboost_host_stalls_total counter", self.lines)
        for line in self.lines:
            if line.startswith("# TYPE") and line.endswith("counter"):
                self.assertTrue(line.split()[2].endswith("_total"), line)

    def test_every_family_has_help_and_type(self):
        names = {line.split("{")[0].split()[0] for line in self.lines
                 if not line.startswith("#")}
        for name in names:
            self.assertIn("# TYPE %s" % name, "\n".join(self.lines))
            self.assertIn("# HELP %s " % name, self.text)

    def test_domains_only_as_named(self):
        self.assertIn('sockboost_host_domain_stalls_total{domain="vm1",'
                      'program="qemu-system-*"} 9', self.lines)
        self.assertEqual([line for line in self.lines
                          if 'domain=' in line and 'qemu-nbd' in line], [])

    def test_off_says_so_and_nothing_else(self):
        text = metrics.exposition({"on": False}, {})
        self.assertIn("sockboost_host_counting 0", text)
        self.assertNotIn("stalls_total", text)


class Written(unittest.TestCase):
    def test_replaces_a_link_never_follows_it(self):
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "target")
            with open(target, "w") as f:
                f.write("precious")
            path = os.path.join(d, "x.prom")
            os.symlink(target, path)
            metrics.write_atomically(path, "a 1\n")
            with open(target) as f:
                self.assertEqual(f.read(), "precious")
            self.assertFalse(os.path.islink(path))
            with open(path) as f:
                self.assertEqual(f.read(), "a 1\n")
            self.assertEqual(sorted(os.listdir(d)), ["target", "x.prom"])


class StallLines(unittest.TestCase):
    def test_one_line_a_domain_and_a_row(self):
        lines = hostmode.stall_lines(STATUS, {7: "vm1"})
        self.assertTrue(lines[0].startswith(
            "qemu-system-* (domain vm1): 4 stalls, 23.2 s lost since "),
            lines[0])
        self.assertTrue(lines[0].endswith("; 'sockboost host enable' "
                                          "removes them"), lines[0])
        self.assertTrue(lines[1].startswith("qemu-nbd: 540 stalls, 23.2 s"))

    def test_names_escaped(self):
        lines = hostmode.stall_lines(STATUS, {7: "vm\x1b[2J"})
        self.assertTrue(lines[0].startswith(
            "qemu-system-* (domain vm\\x1b[2J): "), lines[0])

    def test_program_with_its_version(self):
        lines = hostmode.stall_lines(STATUS, {}, {"qemu-nbd": "7.2.22"})
        self.assertTrue(lines[0].startswith("qemu-nbd 7.2.22: 540 stalls"),
                        lines[0])

    def test_tuned_says_what_is_left(self):
        lines = hostmode.stall_lines(dict(STATUS, observe=False), {})
        self.assertTrue(lines[0].endswith("; left with the tuning on"))

    def test_none_when_not_counting(self):
        self.assertEqual(hostmode.stall_lines(dict(STATUS, counting=False),
                                              {}), [])
