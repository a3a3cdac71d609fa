# SPDX-License-Identifier: MIT
"""What the Python commands of sockboost share with the script that runs
them (tools/sockboost): their names in messages, usage errors, the
command line, and where the pieces are."""

import os
import sys

from .text import shown

PROG = "sockboost"
# tools/ in the build tree, PKGLIBDIR once installed: the helpers are here.
TOOLSDIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def library():
    """The library the script chose (SOCKBOOST_LIBRARY, which it sets)."""
    return os.environ.get("SOCKBOOST_LIBRARY",
                          os.path.join(TOOLSDIR, "libsockboost.so"))


def usage_error(command, message):
    print("%s: %s: %s" % (PROG, command, message), file=sys.stderr)
    print("Try '%s %s --help' for more information." % (PROG, command),
          file=sys.stderr)
    sys.exit(2)


def die(command, message):
    print("%s: %s: %s" % (PROG, command, message), file=sys.stderr)
    sys.exit(1)


def parse(command, argv, usage, operand=None):
    """ARGV of COMMAND, which takes --json, --help (printing USAGE) and at
    most one operand, made a value by OPERAND(text) (which calls
    usage_error when it is malformed).  Returns (json, value or None)."""
    json_wanted, value = False, None
    for arg in argv:
        if arg in ("-h", "--help"):
            print(usage, end="")
            sys.exit(0)
        elif arg == "--json":
            json_wanted = True
        elif arg.startswith("-"):
            usage_error(command, "unknown option '%s'" % shown(arg))
        elif operand is None or value is not None:
            usage_error(command, "unexpected argument '%s'" % shown(arg))
        else:
            value = operand(arg)
    return json_wanted, value
