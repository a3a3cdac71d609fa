#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Type Ctrl-C at a command, as a user at a terminal would.

    pty-interrupt.py MARKER OUTPUT CMD [ARG...]

Runs CMD in a new session on a new pseudo-terminal, as its foreground
process group (with SIGINT at its default, whatever this process was
given), waits for the file MARKER to hold something, types Ctrl-C (the terminal
sends SIGINT to the whole group), and waits for CMD to exit.  What CMD
wrote to the terminal goes to OUTPUT.  Prints CMD's status as a shell
shows it (128+N after signal N).  Every wait is bounded: if one runs
out, the group is killed and this exits 1.
"""

import os
import pty
import select
import signal
import sys
import time

WAIT_SECONDS = 20


def drain(fd, out, until):
    """Copy terminal output to OUT until UNTIL() holds or time runs out."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not until():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if select.select([fd], [], [], min(left, 0.05))[0]:
            try:
                out.write(os.read(fd, 65536))
            except OSError:  # EIO: every process left the terminal
                time.sleep(0.02)
    return True


def marked(path):
    try:
        return os.path.getsize(path) > 0
    except FileNotFoundError:
        return False


def main():
    marker, output, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execvp(cmd[0], cmd)
    status = []

    def exited():
        if not status:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p == pid:
                status.append(st)
        return bool(status)

    with open(output, "wb") as out:
        ok = drain(fd, out, lambda: marked(marker) or exited())
        if ok and not status:
            os.write(fd, b"\x03")
            ok = drain(fd, out, exited)
    if not ok:
        os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        print("pty-interrupt.py: timed out after %d s" % WAIT_SECONDS,
              file=sys.stderr)
        sys.exit(1)
    st = status[0]
    print(128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st))


if __name__ == "__main__":
    main()
