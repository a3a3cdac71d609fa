# SPDX-License-Identifier: MIT
"""sockboostlib.hostmode: sb-host's answers read as they are, who tuned a
socket, and the lines doctor prints."""

import json
import os
import unittest
from unittest import mock

from sockboostlib import hostmode

STATUS_PID = json.loads("""{"pid": 7, "on": true, "sockets": [
 {"fd": 3, "inode": 11, "tcp_nodelay": true, "unix_sndbuf": false,
  "program": "qemu-nbd"},
 {"fd": 9, "inode": 12, "tcp_nodelay": false, "unix_sndbuf": true,
  "program": "qemu-nbd"}]}""")


class Marks(unittest.TestCase):
    def test_by_inode(self):
        marks = hostmode.marks_by_inode(STATUS_PID)
        self.assertEqual(sorted(marks), [11, 12])
        self.assertEqual(marks[12], {"tcp_nodelay": False, "unix_sndbuf": True,
                                     "program": "qemu-nbd"})

    def test_off_has_none(self):
        self.assertEqual(hostmode.marks_by_inode(
            {"pid": 7, "on": False, "sockets": []}), {})

    def test_tuned_by(self):
        mark = {"tcp_nodelay": False, "unix_sndbuf": True, "program": "x"}
        self.assertEqual(hostmode.tuned_by(mark, False), ["host mode"])
        self.assertEqual(hostmode.tuned_by(None, True), ["library"])
        self.assertEqual(hostmode.tuned_by(mark, True), ["host mode", "library"])
        self.assertEqual(hostmode.tuned_by(None, False), [])
        self.assertEqual(hostmode.tuned_by(
            dict(mark, unix_sndbuf=False), False), [])


class Lines(unittest.TestCase):
    def test_off(self):
        self.assertEqual(hostmode.state_line({"on": False}),
                         "off ('sockboost host enable' turns it on)")

    def test_on(self):
        state = {"on": True, "whole": True, "since": 0, "cgroup": "/cg",
                 "whole_host": True, "filter": {
                     "kind": "programs", "programs": ["qemu-nbd", "sbnbd-*"],
                     "ports": []}}
        line = hostmode.state_line(state)
        self.assertRegex(line, r"^on since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d "
                         r"[-+]\d{4}, cgroup /cg \(the whole host\), filter "
                         r"programs qemu-nbd, sbnbd-\*$")
        self.assertTrue(hostmode.state_line(dict(state, whole=False)).endswith(
            "not whole: run 'sockboost host enable' again"))
        self.assertTrue(hostmode.state_line(dict(state, observe=True))
                        .startswith("observing (counting only, no socket "
                                    "changed) since "))

    def test_watcher(self):
        state = {"on": True, "whole": True, "since": 0, "cgroup": "/cg",
                 "filter": {"kind": "all"}, "tcp_by": "watcher",
                 "watcher": {"running": True, "pid": 42}}
        self.assertTrue(hostmode.state_line(state).endswith(
            "filter all; TCP_NODELAY by the watcher (pid 42)"))
        dead = dict(state, whole=False, watcher={"running": False, "pid": None})
        self.assertTrue(hostmode.state_line(dead).endswith(
            "filter all; TCP_NODELAY by the watcher, which is NOT running; "
            "not whole: run 'sockboost host enable' again"))

    def test_filters(self):
        self.assertEqual(hostmode.filter_text({"kind": "ports",
                                               "ports": [10809, 10810]}),
                         "ports 10809, 10810")
        self.assertEqual(hostmode.filter_text({"kind": "all"}), "all")

    def test_check(self):
        self.assertEqual(hostmode.check_line({"can_run": False, "why": "no"}),
                         "no: no")
        self.assertEqual(hostmode.check_line(
            {"can_run": True, "unix": True, "unix_sndbuf": 4194304}),
            "yes: TCP_NODELAY, and unix buffers of 4194304")
        self.assertEqual(hostmode.check_line(
            {"can_run": True, "unix": False, "unix_why": "before 6.7"}),
            "yes: TCP_NODELAY; unix buffers not: before 6.7")
        self.assertEqual(hostmode.check_line(
            {"can_run": True, "tcp_by": "watcher", "unix": False,
             "unix_why": "before 6.7"}),
            "yes: TCP_NODELAY by the watcher; unix buffers not: before 6.7")


class Asking(unittest.TestCase):
    def test_not_root(self):
        with mock.patch.object(os, "geteuid", return_value=1000), \
                mock.patch.object(os, "access", return_value=True):
            self.assertEqual(hostmode.host_state(),
                             (None, "only root can read host mode's state"))

    def test_not_built(self):
        with mock.patch.object(os, "access", return_value=False):
            answer, why = hostmode.can_run()
        self.assertIsNone(answer)
        self.assertIn("sb-host", why)

    def test_off_process(self):
        with mock.patch.object(hostmode, "ask", return_value=(
                {"pid": 7, "on": False, "sockets": []}, None)):
            self.assertEqual(hostmode.tuned_sockets(7), (None, "off"))
