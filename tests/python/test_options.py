# SPDX-License-Identifier: MIT
"""sockboostlib.options: the command line, --help, and the readers of
positive integers, choices and sizes."""

import contextlib
import io
import os
import tempfile
import unittest
from unittest import mock

from sockboostlib import options
from sockboostlib.command import Failure, UsageError
from sockboostlib.options import Option, Parser, choice, positive_int


def parser(**kw):
    return Parser("Usage: sockboost test [OPTION...] NAME", "Test things.", [
        Option("--json", "print JSON"),
        Option("--repeat", "runs of each", "N", positive_int),
        Option(("-c", "--connect"), "the connection", "URI"),
        Option("--root", "a root, repeatable", "DIR", repeat=True)], **kw)


class Parsing(unittest.TestCase):
    def test_defaults(self):
        args = parser().parse([])
        self.assertEqual((args.json, args.repeat, args.connect, args.root,
                          args.rest), (None, None, None, [], []))

    def test_switch_and_values_in_both_forms(self):
        args = parser().parse(["--json", "--repeat", "3", "--connect=qemu:///x",
                               "--root", "a", "--root=b"])
        self.assertEqual((args.json, args.repeat, args.connect, args.root),
                         (True, 3, "qemu:///x", ["a", "b"]))

    def test_short_name(self):
        self.assertEqual(parser().parse(["-c", "u"]).connect, "u")

    def test_last_value_wins(self):
        self.assertEqual(parser().parse(["--repeat", "1", "--repeat", "2"])
                         .repeat, 2)

    def test_operands_in_turn(self):
        p = parser(operands=[("NAME", str), ("PID", positive_int)])
        args = p.parse(["vm", "--json", "12"])
        self.assertEqual((args.name, args.pid, args.json), ("vm", 12, True))

    def test_double_dash_ends_the_options(self):
        p = parser(operands=[("NAME", str)])
        self.assertEqual(p.parse(["--", "--json"]).name, "--json")

    def test_rest_keeps_what_is_not_ours_in_order(self):
        args = parser(rest=True).parse(["--sndbuf", "1M", "-c", "u", "-v",
                                        "vm"])
        self.assertEqual((args.connect, args.rest),
                         ("u", ["--sndbuf", "1M", "-v", "vm"]))


class UsageErrors(unittest.TestCase):
    """Each mistake in the wording every sockboost command uses."""

    def assertRefused(self, argv, message, **kw):
        with self.assertRaises(UsageError) as caught:
            parser(**kw).parse(argv)
        self.assertEqual(str(caught.exception), message)

    def test_unknown_option(self):
        self.assertRefused(["--frob"], "unknown option '--frob'")
        self.assertRefused(["-x"], "unknown option '-x'")

    def test_no_abbreviations(self):
        self.assertRefused(["--rep", "1"], "unknown option '--rep'")

    def test_missing_empty_or_optionlike_value(self):
        self.assertRefused(["--repeat"], "option '--repeat' needs a value")
        self.assertRefused(["--repeat="], "option '--repeat' needs a value")
        self.assertRefused(["-c", ""], "option '-c' needs a value")
        self.assertRefused(["--connect", "--json"],
                           "option '--connect' needs a value")

    def test_switch_given_a_value(self):
        self.assertRefused(["--json=yes"], "option '--json' takes no value")

    def test_invalid_value(self):
        self.assertRefused(["--repeat", "0"],
                           "invalid --repeat '0': expected a positive integer")
        self.assertRefused(["--repeat=x"],
                           "invalid --repeat 'x': expected a positive integer")

    def test_missing_and_extra_operands(self):
        self.assertRefused([], "no NAME given", operands=[("NAME", str)])
        self.assertRefused(["a", "b"], "unexpected argument 'b'",
                           operands=[("NAME", str)])
        self.assertRefused(["a"], "unexpected argument 'a'")

    def test_invalid_operand(self):
        self.assertRefused(["x"], "invalid PID 'x': expected a positive "
                           "integer", operands=[("PID", positive_int)])

    def test_what_the_user_typed_is_escaped(self):
        self.assertRefused(["--\x1b[2J"], "unknown option '--\\x1b[2J'")
        self.assertRefused(["--repeat", "1\n"],
                           "invalid --repeat '1\\n': expected a positive "
                           "integer")


class Help(unittest.TestCase):
    def help_text(self, p, argv=("--help",)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                self.assertRaises(SystemExit) as caught:
            p.parse(argv)
        self.assertEqual(caught.exception.code, 0)
        return out.getvalue()

    def test_help_comes_first_and_exits_0(self):
        text = self.help_text(parser(), ["--json", "--help", "--frob"])
        self.assertTrue(text.startswith("Usage: sockboost test [OPTION...] "
                                        "NAME\nTest things.\n\n"))

    def test_every_option_on_a_line_of_its_own(self):
        lines = self.help_text(parser()).splitlines()
        tags = [line.split("  ")[1] for line in lines
                if line.startswith("  -")]
        self.assertEqual(tags, ["--json", "--repeat N", "-c, --connect URI",
                                "--root DIR", "-h, --help"])

    def test_help_texts_line_up_and_fold_under_themselves(self):
        long = Option("--long", "word " * 40)
        lines = self.help_text(Parser("Usage: x", "X.", [long])).splitlines()
        body = [line for line in lines if line.startswith("   ")]
        self.assertTrue(body)
        self.assertTrue(all(len(line) <= options.WIDTH for line in lines))
        column = lines[3].index("word")
        self.assertTrue(all(line[:column].strip() == "" for line in body))

    def test_no_folded_line_looks_like_an_option(self):
        """tests/help-man-options.bats reads each line that starts with
        blanks and a dash as an option's."""
        for pad in range(8):
            text = "x" * pad + "".join(" then --option-%d, N" % i
                                       for i in range(20))
            p = Parser("Usage: x", "X.", [Option("--a", text)])
            lines = self.help_text(p).splitlines()
            with self.subTest(pad=pad):
                self.assertEqual([line for line in lines
                                  if line.lstrip().startswith("-")],
                                 [line for line in lines
                                  if line.startswith("  -")])
                self.assertEqual(" ".join(lines[3:-1]).split(),
                                 ["--a"] + text.split())


class Readers(unittest.TestCase):
    def test_positive_int(self):
        self.assertEqual(positive_int("1"), 1)
        self.assertEqual(positive_int("007"), 7)
        self.assertEqual(positive_int("99999999999999999999"),
                         99999999999999999999)
        for text in ("0", "-1", "", " 1", "1 ", "1.5", "0x10", "\u00b2",
                     "\u0661", "+3"):
            with self.subTest(text=text), self.assertRaises(ValueError) as e:
                positive_int(text)
            self.assertEqual(str(e.exception), "expected a positive integer")

    def test_choice(self):
        read = choice("auto", "on", "off")
        self.assertEqual(read("on"), "on")
        with self.assertRaisesRegex(ValueError, "^expected auto, on or off$"):
            read("maybe")
        with self.assertRaisesRegex(ValueError, "^expected all or nbd$"):
            choice("all", "nbd")("x")


class Sizes(unittest.TestCase):
    """Sizes are read by the C parser: these check that its answers come
    through, not its rules."""

    def setUp(self):
        helper = options.paths.helper(options.SIZE_HELPER)
        if not os.access(helper, os.X_OK):
            self.skipTest("%s is not built (make)" % helper)

    def test_forms(self):
        self.assertEqual(options.size("2M"), 2 << 20)
        self.assertEqual(options.size("4194304"), 4 << 20)
        self.assertEqual(options.size("1G", "sndbuf"), 1 << 30)

    def test_the_c_parsers_words(self):
        with self.assertRaises(ValueError) as e:
            options.size("3X")
        self.assertEqual(str(e.exception), "expected a size such as 2M or "
                         "4194304 (K, M, G or T; at least 1)")

    def test_a_send_buffer_has_the_librarys_limit(self):
        with self.assertRaisesRegex(ValueError, r"from 1 to 1G\)$"):
            options.size("2G", "sndbuf")

    def test_as_typed(self):
        self.assertEqual(options.size_as_typed("64M"), "64M")
        with self.assertRaises(ValueError):
            options.size_as_typed("0")

    def test_an_option_of_that_kind(self):
        p = Parser("Usage: x", "X.", [Option("--size", "s", "SIZE",
                                             options.size)])
        with self.assertRaisesRegex(UsageError, "^invalid --size '1Q': "
                                    "expected a size such as"):
            p.parse(["--size", "1Q"])

    def test_without_the_parser_a_failure_not_a_usage_error(self):
        with tempfile.TemporaryDirectory() as empty, \
                mock.patch.dict(os.environ, SB_BUILD=empty), \
                self.assertRaisesRegex(Failure, "cannot read the size '2M': "
                                       ".*sb-config is not built"):
            options.size("2M")


if __name__ == "__main__":
    unittest.main()
