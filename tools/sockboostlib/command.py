# SPDX-License-Identifier: MIT
"""How a sockboost command fails, warns and exits: the one convention of
every Python command (doctor, status, libvirt) and of the benchmark, the
same as tools/sockboost's for run and the C programs' (common/report.c).

    COMMAND = Command("status")

    def main(argv):
        ...
        raise Failure("process %d: %s" % (pid, why))

    if __name__ == "__main__":
        COMMAND.exit_with(main)

A Failure is one line on stderr, "sockboost: status: what failed: why",
and exit status 1.  A UsageError is that line and "Try 'sockboost status
--help' for more information.", exit status 2.  Every line is made
printable here, whatever the caller forgot to escape, so that a name
read from outside cannot drive the terminal."""

import os
import signal
import sys

from .text import printable

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
# A reader that went away ('sockboost doctor | head'): what a shell
# reports of a program that SIGPIPE ended, with no traceback.
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
PROGRAM = "sockboost"


class Failure(Exception):
    """What failed and why, in one line: exit status 1."""


class UsageError(Exception):
    """What is wrong with the command line, in one line: exit status 2,
    with the line naming the help to read."""


class Command:
    """A command's name in its messages: NAME under PROGRAM ("sockboost:
    doctor: ..."), or PROGRAM alone when NAME is None; its help is
    HELP_COMMAND --help (default: PROGRAM NAME)."""

    def __init__(self, name, program=PROGRAM, help_command=None):
        self.name = name
        self.prefix = "%s: %s: " % (program, name) if name else program + ": "
        self.help_command = help_command or " ".join(
            part for part in (program, name) if part)

    def say(self, line):
        print(printable(self.prefix + line), file=sys.stderr, flush=True)

    def warn(self, message):
        self.say("warning: " + message)

    def usage_error(self, message):
        """Report MESSAGE as a usage error; return the exit status."""
        self.say(message)
        print("Try '%s --help' for more information." % self.help_command,
              file=sys.stderr)
        return EXIT_USAGE

    def run(self, main, argv):
        """MAIN(ARGV)'s exit status, a Failure or UsageError reported."""
        try:
            return main(argv) or 0
        except UsageError as e:
            return self.usage_error(str(e))
        except Failure as e:
            self.say(str(e))
            return EXIT_FAILURE
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            # Python's own flush at exit would fail again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_BROKEN_PIPE

    def exit_with(self, main):
        """Run MAIN on the command line and exit with its status."""
        sys.exit(self.run(main, sys.argv[1:]))
