# SPDX-License-Identifier: MIT
"""How a sockboost command reads its command line: options, operands,
--help, and values such as positive integers and sizes, with one wording
for what is wrong (the same as 'sockboost run' and the C programs use):

    PARSER = Parser("Usage: sockboost status [--json] PID", DESCRIPTION,
                    [Option("--json", "print one JSON object")],
                    operands=[("PID", process_id)])
    args = PARSER.parse(argv)          # args.json, args.pid

A reader takes the text and returns the value, or raises ValueError
saying what it expected; the parser makes that a UsageError such as
"invalid --repeat '0': expected a positive integer".  Sizes are read by
the C code that reads them everywhere else (common/parse-size.c), so no
script restates which forms are valid."""

import os
import re
import subprocess
import sys
import types

from . import paths
from .command import Failure, UsageError
from .text import shown

WIDTH = 78
# The widest option tag beside its help; a longer one puts its help on
# the next line.
TAG_WIDTH = 22


class Option:
    """An option: NAMES ("--json", or ("-c", "--connect")), HELP for
    --help; VALUE names its value (None: a switch, True when given),
    READ makes the value from the text; REPEAT collects each value in a
    list.  Its attribute is its long name with '_' for '-'."""

    def __init__(self, names, help, value=None, read=str, repeat=False):
        self.names = (names,) if isinstance(names, str) else tuple(names)
        self.help, self.value, self.read = help, value, read
        self.repeat = repeat
        self.dest = self.names[-1].lstrip("-").replace("-", "_")

    def tag(self):
        return ", ".join(self.names) + (" " + self.value if self.value
                                         else "")


HELP = Option(("-h", "--help"), "show this help")


class Parser:
    """The command line of one command: USAGE (its usage lines), then
    DESCRIPTION and EPILOG around the options in --help.  OPERANDS are
    (NAME, READ) pairs, each required; with REST, the arguments that are
    neither our options nor operands are kept in order in args.rest
    (options of another command to pass on)."""

    def __init__(self, usage, description, options=(), operands=(),
                 rest=False, epilog=""):
        self.usage, self.description, self.epilog = usage, description, epilog
        self.options = list(options) + [HELP]
        self.by_name = {n: o for o in self.options for n in o.names}
        self.operands, self.rest = list(operands), rest

    def help(self):
        lines = [self.usage.rstrip("\n"), self.description.rstrip("\n"), ""]
        column = 5 + min(TAG_WIDTH, max(len(o.tag()) for o in self.options))
        lines += [option_lines(o, column) for o in self.options]
        if self.epilog:
            lines.append(self.epilog.rstrip("\n"))
        return "\n".join(lines) + "\n"

    def parse(self, argv):
        """The values in ARGV, as attributes; --help printed and exit 0."""
        args = types.SimpleNamespace(rest=[], **{
            o.dest: [] if o.repeat else None for o in self.options})
        words, argv = [], list(argv)
        while argv:
            arg = argv.pop(0)
            if arg == "--":
                words += argv
                break
            name = arg.partition("=")[0] if arg.startswith("--") else arg
            option = self.by_name.get(name)
            if option is HELP:
                print(self.help(), end="")
                sys.exit(0)
            if option is not None:
                self.take(option, arg, argv, args)
            elif arg.startswith("-") and arg != "-" and not self.rest:
                raise UsageError("unknown option '%s'" % shown(arg))
            else:
                words.append(arg)
        self.place(words, args)
        return args

    def take(self, option, arg, argv, args):
        """Set OPTION's value, from ARG (--name=value) or the next word."""
        given = "=" in arg and arg.startswith("--")
        if option.value is None:
            if given:
                raise UsageError("option '%s' takes no value"
                                 % shown(option.names[-1]))
            setattr(args, option.dest, True)
            return
        text = arg.partition("=")[2] if given else (argv.pop(0) if argv
                                                    else "")
        name = shown(arg.partition("=")[0])
        # A value that is missing, empty or another option ('--out --').
        if text == "" or (text.startswith("--") and not given):
            raise UsageError("option '%s' needs a value" % name)
        value = read_value(option.read, name, text)
        if option.repeat:
            getattr(args, option.dest).append(value)
        else:
            setattr(args, option.dest, value)

    def place(self, words, args):
        """Give WORDS to the operands in turn, the others to args.rest."""
        for name, read in self.operands:
            if not words:
                raise UsageError("no %s given" % name)
            setattr(args, name.lower(), read_value(read, name, words.pop(0)))
        if words and not self.rest:
            raise UsageError("unexpected argument '%s'" % shown(words[0]))
        args.rest = words


def read_value(read, name, text):
    """READ(TEXT), the value of NAME; a ValueError made a UsageError."""
    try:
        return read(text)
    except ValueError as e:
        raise UsageError("invalid %s '%s': %s" % (name, shown(text), e)) \
            from None


def option_lines(option, column):
    """OPTION's lines in --help: its tag, then its help folded beside, at
    COLUMN."""
    tag = "  " + option.tag()
    if len(tag) >= column - 1:
        return tag + "\n" + folded(option.help, column)
    return tag.ljust(column) + folded(option.help, column)[column:]


def folded(text, column):
    """TEXT folded into lines of WIDTH indented by COLUMN blanks, no line
    starting with a dash: only an option's own line may (a reader of
    --help, such as tests/help-man-options.bats, takes it for one)."""
    lines = [[]]
    for word in text.split():
        if column + len(" ".join(lines[-1] + [word])) > WIDTH and lines[-1]:
            lines.append([])
        lines[-1].append(word)
    for i in range(len(lines) - 1, 0, -1):
        while lines[i][0].startswith("-") and len(lines[i - 1]) > 1:
            lines[i].insert(0, lines[i - 1].pop())
    return "\n".join(" " * column + " ".join(words) for words in lines)


# ---- readers ---------------------------------------------------------------

def positive_int(text):
    """TEXT as an integer from 1: ASCII digits only."""
    if not re.fullmatch(r"[0-9]+", text) or int(text) == 0:
        raise ValueError("expected a positive integer")
    return int(text)


def choice(*words):
    """A reader that takes one of WORDS."""
    def read(text):
        if text not in words:
            raise ValueError("expected %s" % " or ".join(
                filter(None, (", ".join(words[:-1]), words[-1]))))
        return text
    return read


# The C size parser is asked through sb-config, the rules helper, with
# the option for each kind of size: a send buffer (at most what the
# library takes) or a count of bytes.
SIZE_HELPER = "sb-config"
SIZE_OPTIONS = {"sndbuf": "--sndbuf-size", "bytes": "--size"}


def size(text, kind="bytes"):
    """The bytes TEXT stands for as a size of KIND ("sndbuf" or "bytes"),
    read by the C parser; ValueError says what it expected, in the C
    parser's own words.  Failure when the parser is not there."""
    helper = paths.helper(SIZE_HELPER)
    if not os.access(helper, os.X_OK):
        raise Failure("cannot read the size '%s': %s"
                      % (shown(text), paths.missing(helper)))
    try:
        r = subprocess.run([helper, SIZE_OPTIONS[kind], text],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failure("cannot read the size '%s': %s: %s"
                      % (shown(text), helper, e)) from None
    if r.returncode != 0:
        # "sb-config: invalid size '3X': expected a size such as 2M...".
        first = (r.stderr.splitlines() or [""])[0]
        raise ValueError("expected " + first.partition(": expected ")[2]
                         if ": expected " in first else first)
    key, _, value = r.stdout.partition("\t")
    if key != "size" or not value.strip().isdigit():
        raise Failure("cannot read the size '%s': %s printed %r"
                      % (shown(text), helper, r.stdout))
    return int(value)


def size_as_typed(text):
    """TEXT, once it reads as a size: for a size passed on as typed."""
    size(text)
    return text
