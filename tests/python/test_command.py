# SPDX-License-Identifier: MIT
"""sockboostlib.command: how a command fails, warns and exits."""

import contextlib
import io
import os
import subprocess
import sys
import unittest

from sockboostlib import command
from sockboostlib.command import Command, Failure, UsageError

TOOLS = os.path.dirname(os.path.dirname(command.__file__))


def run(command, main, argv=()):
    """(exit status, stderr) of COMMAND running MAIN."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = command.run(main, list(argv))
    return status, err.getvalue()


def raising(exc):
    def main(argv):
        raise exc
    return main


class Exits(unittest.TestCase):
    def test_success_is_zero_and_silent(self):
        self.assertEqual(run(Command("doctor"), lambda argv: None), (0, ""))

    def test_main_chooses_its_status(self):
        self.assertEqual(run(Command("doctor"), lambda argv: 1), (1, ""))

    def test_failure_is_one_line_and_status_1(self):
        self.assertEqual(run(Command("status"), raising(Failure("no process 7"))),
                         (1, "sockboost: status: no process 7\n"))

    def test_usage_error_names_the_help_and_is_status_2(self):
        self.assertEqual(
            run(Command("libvirt"), raising(UsageError("no domain given"))),
            (2, "sockboost: libvirt: no domain given\n"
                "Try 'sockboost libvirt --help' for more information.\n"))

    def test_interrupt_is_130(self):
        self.assertEqual(run(Command("bench"), raising(KeyboardInterrupt()))[0],
                         130)

    def test_other_errors_are_not_swallowed(self):
        with self.assertRaises(ZeroDivisionError):
            run(Command("bench"), lambda argv: 1 // 0)

    def test_a_reader_gone_ends_quietly(self):
        """'sockboost doctor | head': no traceback, SIGPIPE's status."""
        script = ("import sys; sys.path.insert(0, %r)\n"
                  "from sockboostlib.command import Command\n"
                  "def main(argv):\n"
                  "    for n in range(100000): print(n, flush=True)\n"
                  "Command('doctor').exit_with(main)\n"
                  % TOOLS)
        read, write = os.pipe()
        os.close(read)
        with os.fdopen(write, "w") as out:
            r = subprocess.run([sys.executable, "-c", script], stdout=out,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual((r.returncode, r.stderr), (141, ""))

    def test_argv_reaches_main(self):
        seen = []
        run(Command("doctor"), lambda argv: seen.extend(argv), ["--json"])
        self.assertEqual(seen, ["--json"])


class Names(unittest.TestCase):
    def test_a_program_of_its_own(self):
        demo = Command(None, program="demo", help_command="tools/demo")
        self.assertEqual(run(demo, raising(UsageError("bad")))[1],
                         "demo: bad\nTry 'tools/demo --help' for more "
                         "information.\n")

    def test_warning(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            Command("libvirt").warn("remote")
        self.assertEqual(err.getvalue(), "sockboost: libvirt: warning: remote\n")


class Escaping(unittest.TestCase):
    """No value in a message can drive the terminal or add a line."""

    def test_control_characters_are_escaped(self):
        status, err = run(Command("status"),
                          raising(Failure("name \x1b[31mred\nnext\r\x7f")))
        self.assertEqual(err, "sockboost: status: name \\x1b[31mred\\nnext"
                         "\\r\\x7f\n")

    def test_bytes_that_are_not_utf8_are_escaped(self):
        name = b"a\x9bb".decode("utf-8", "surrogateescape")
        self.assertEqual(run(Command("status"), raising(Failure(name)))[1],
                         "sockboost: status: a\\x9bb\n")

    def test_printable_text_is_left_alone(self):
        text = "caf\u00e9 \\x1b 'quoted' 100%"
        self.assertEqual(run(Command("status"), raising(Failure(text)))[1],
                         "sockboost: status: %s\n" % text)

    def test_usage_errors_too(self):
        err = run(Command("bench"), raising(UsageError("x\ny")))[1]
        self.assertEqual(err.splitlines()[0], "sockboost: bench: x\\ny")


if __name__ == "__main__":
    unittest.main()
