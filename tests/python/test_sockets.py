# SPDX-License-Identifier: MIT
"""sockboostlib.sockets: ss's records read into sockets, whatever the
names in them hold."""

import subprocess
import unittest
from unittest import mock

from sockboostlib import sockets

SKMEM = "skmem:(r0,rb212992,t0,tb%d,f0,w0,o0,bl0,d0)"
UNIX = "\n".join([
    "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess",
    # A listener, and a connection it accepted, named with a blank.
    "u_str LISTEN 0 4096 /run/my dir/nbd.sock 100 * 0 "
    'users:(("qemu-nbd",pid=10,fd=3)) ' + SKMEM % 212992,
    "u_str ESTAB 0 0 /run/my dir/nbd.sock 101 * 102 "
    'users:(("qemu-nbd",pid=10,fd=9),("qemu-nbd",pid=10,fd=11)) '
    + SKMEM % 4194304,
    # The client's end: a name with a quote, no address.
    'u_str ESTAB 0 0 * 102 * 101 users:(("my \\"client\\"",pid=20,fd=4)) '
    + SKMEM % 212992,
    # A name holding a newline cuts its record in two.
    "u_str ESTAB 0 0 /tmp/odd",
    "name 103 * 0 " + SKMEM % 8192,
    # Not a stream socket.
    "u_dgr UNCONN 0 0 /run/log 104 * 0 " + SKMEM % 212992,
    ""])
TCP = "\n".join([
    "State Recv-Q Send-Q Local Address:Port Peer Address:Port Process",
    "LISTEN 0 128 127.0.0.1:10809 0.0.0.0:* "
    'users:(("qemu-nbd",pid=10,fd=5)) ino:200 sk:1 cgroup:/ <->',
    "\t " + SKMEM % 16384,
    "ESTAB 0 0 127.0.0.1:10809 127.0.0.1:40000 "
    'users:(("qemu-nbd",pid=10,fd=12)) ino:201 sk:2 cgroup:/ <->',
    "\t " + SKMEM % 2626560,
    "ESTAB 0 0 127.0.0.1:40000 127.0.0.1:10809 "
    'users:(("qemu-img",pid=30,fd=6)) ino:202 sk:3 cgroup:/ <->',
    "\t " + SKMEM % 87040,
    ""])


def fake_ss(cmd, **kw):
    out = UNIX if "-xapmn" in cmd else TCP
    return subprocess.CompletedProcess(cmd, 0, out.encode(), b"")


class Parsing(unittest.TestCase):
    def setUp(self):
        patcher = mock.patch.object(sockets.subprocess, "run", fake_ss)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_records_are_joined(self):
        records = sockets.ss_records("-tapmen")
        self.assertEqual(len(records), 3)
        self.assertIn(" skmem:(", records[0])
        self.assertIn("/tmp/odd\nname 103", "".join(sockets.ss_records(
            "-xapmn")))

    def test_unix_sockets_of_a_process(self):
        found = sockets.unix_sockets({100: [3], 101: [9, 11], 103: [7]})
        self.assertEqual([(s.inode, s.fds, s.state, s.local, s.tb,
                           s.peer_inode) for s in found],
                         [(100, [3], "LISTEN", "/run/my dir/nbd.sock", 212992,
                           0),
                          (101, [9, 11], "ESTAB", "/run/my dir/nbd.sock",
                           4194304, 102),
                          (103, [7], "ESTAB", "/tmp/odd\nname", 8192, 0)])
        self.assertFalse(found[0].connected)
        self.assertTrue(found[1].connected)

    def test_the_peer_process_of_a_unix_socket(self):
        accepted = sockets.unix_sockets({101: [9]})[0]
        self.assertEqual(accepted.peer_processes,
                         [sockets.Process('my "client"', 20)])
        client = sockets.unix_sockets({102: [4]})[0]
        self.assertIsNone(client.local)
        self.assertEqual(client.peer_processes, [sockets.Process("qemu-nbd",
                                                                 10)])

    def test_tcp_sockets_and_their_peers_on_this_host(self):
        found = sockets.tcp_sockets({200: [5], 201: [12]})
        self.assertEqual([(s.state, s.local, s.peer, s.tb) for s in found],
                         [("LISTEN", "127.0.0.1:10809", "0.0.0.0:*", 16384),
                          ("ESTAB", "127.0.0.1:10809", "127.0.0.1:40000",
                           2626560)])
        self.assertFalse(found[0].connected)
        self.assertEqual(found[1].peer_processes,
                         [sockets.Process("qemu-img", 30)])

    def test_sockets_of_other_processes_are_left_out(self):
        self.assertEqual(sockets.unix_sockets({999: [1]}), [])
        self.assertEqual(sockets.tcp_sockets({}), [])


class Failing(unittest.TestCase):
    def test_ss_missing_or_failing_is_an_ss_error(self):
        for error in (FileNotFoundError(2, "No such file"),
                      subprocess.CalledProcessError(1, ["ss"])):
            with self.subTest(error=error), \
                    mock.patch.object(sockets.subprocess, "run",
                                      side_effect=error), \
                    self.assertRaises(sockets.SsError):
                sockets.ss_records("-xapmn")


class Extras(unittest.TestCase):
    def test_without_skmem_or_users(self):
        rest, processes, tb = sockets.split_extras("u_str ESTAB 0 0 * 5 * 6")
        self.assertEqual((rest, processes, tb), ("u_str ESTAB 0 0 * 5 * 6",
                                                 [], None))

    def test_a_process_named_once(self):
        _, processes, _ = sockets.split_extras(
            'x users:(("a",pid=1,fd=3),("a",pid=1,fd=4),("b",pid=2,fd=5))')
        self.assertEqual(processes, [sockets.Process("a", 1),
                                     sockets.Process("b", 2)])


if __name__ == "__main__":
    unittest.main()
