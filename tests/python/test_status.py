# SPDX-License-Identifier: MIT
"""sockboost status: its command line, and whether a socket's send
buffer shows a boost."""

import unittest

from sockboostlib.command import UsageError
from sockboostlib.sockets import Process, Socket
from support import command_module

status = command_module("status")
DEFAULT, TCP_MAX = 212992, 4194304


def unix(state="ESTAB", tb=DEFAULT, peer_inode=2):
    return Socket("unix", [3], state, None, 1, tb, None, peer_inode, [])


def tcp(state="ESTAB", tb=87040, peer="127.0.0.1:10809"):
    return Socket("tcp", [4], state, "127.0.0.1:5", 1, tb, peer, None, [])


class Verdict(unittest.TestCase):
    def verdict(self, s, default=DEFAULT):
        return status.verdict(s, default, TCP_MAX)

    def test_unix(self):
        self.assertEqual(self.verdict(unix(tb=4194304)), "yes")
        self.assertEqual(self.verdict(unix()), "no (default)")
        self.assertEqual(self.verdict(unix(tb=4608)), "no (below default)")
        self.assertEqual(self.verdict(unix(tb=None)), "unknown")
        self.assertEqual(self.verdict(unix(), default=None), "unknown")

    def test_a_listener_has_no_verdict(self):
        self.assertEqual(self.verdict(unix("LISTEN", tb=4194304)),
                         "n/a (listening)")
        self.assertEqual(self.verdict(tcp("LISTEN")), "n/a (listening)")

    def test_tcp_only_above_autotuning(self):
        self.assertEqual(self.verdict(tcp(tb=TCP_MAX)), "n/a (autotuned)")
        self.assertEqual(self.verdict(tcp(tb=TCP_MAX + 1)),
                         "yes (above autotuning)")

    def test_json_says_it_as_a_boolean(self):
        s = unix()
        self.assertIs(status.socket_json(s, "yes")["boosted"], True)
        self.assertIs(status.socket_json(s, "no (default)")["boosted"], False)
        self.assertIsNone(status.socket_json(s, "unknown")["boosted"])


class Peer(unittest.TestCase):
    def test_texts(self):
        s = unix()
        self.assertEqual(status.peer_text(s), "inode 2 (process not visible)")
        s.peer_processes = [Process("qemu\x1b-img", 7)]
        self.assertEqual(status.peer_text(s), "qemu\\x1b-img 7")
        self.assertEqual(status.peer_text(unix(peer_inode=0)), "-")
        self.assertEqual(status.peer_text(tcp()), "127.0.0.1:10809")


class CommandLine(unittest.TestCase):
    def test_pid(self):
        self.assertEqual(status.PARSER.parse(["--json", "42"]).pid, 42)
        for text in ("12x", "-1", "", "12345678901"):
            with self.subTest(text=text), self.assertRaises(UsageError):
                status.PARSER.parse(["--", text])


if __name__ == "__main__":
    unittest.main()
