# SPDX-License-Identifier: MIT
"""sockboost libvirt's command line: the subcommand, --connect anywhere,
the domain last, run's options passed on untouched."""

import contextlib
import io
import unittest

from sockboostlib.command import UsageError
from support import command_module

libvirt = command_module("libvirt")


class Arguments(unittest.TestCase):
    def test_run_options_pass_through_in_order(self):
        self.assertEqual(libvirt.parse_args(
            ["enable", "--sndbuf", "1M", "-c", "qemu:///system", "-v", "vm"]),
            ("enable", "qemu:///system", "vm", ["--sndbuf", "1M", "-v"]))
        self.assertEqual(libvirt.parse_args(["status", "--connect=u", "vm"]),
                         ("status", "u", "vm", []))

    def test_usage_errors(self):
        for argv, message in (
                ([], "no command given (enable, disable or status)"),
                (["frob", "vm"], "unknown command 'frob'"),
                (["enable"], "no domain given (it comes last)"),
                (["enable", "vm", "--sndbuf"], "no domain given (it comes "
                 "last)"),
                (["disable", "-c"], "option '-c' needs a value")):
            with self.subTest(argv=argv), \
                    self.assertRaises(UsageError) as caught:
                libvirt.parse_args(argv)
            self.assertEqual(str(caught.exception), message)

    def test_help_before_or_after_the_subcommand(self):
        for argv in (["--help"], ["enable", "-h"]):
            out = io.StringIO()
            with self.subTest(argv=argv), contextlib.redirect_stdout(out), \
                    self.assertRaises(SystemExit):
                libvirt.parse_args(argv)
            self.assertTrue(out.getvalue().startswith(
                "Usage: sockboost libvirt enable"))


if __name__ == "__main__":
    unittest.main()
