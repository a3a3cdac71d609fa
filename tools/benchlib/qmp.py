# SPDX-License-Identifier: MIT
"""A small client of QMP, the JSON protocol a QEMU process is driven with
over a unix socket: commands and their replies, with the events QEMU sends
in between kept for whoever waits for them.  Every wait is bounded."""

import errno
import json
import socket
import time


class QmpError(Exception):
    """A command failed, QEMU went away, or a wait ran out of time."""


def connect(path, deadline, alive):
    """A socket connected to PATH, retried while QEMU is still creating it
    and ALIVE() says it is running, until DEADLINE (monotonic)."""
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError as e:
            sock.close()
            if e.errno not in (errno.ENOENT, errno.ECONNREFUSED):
                raise QmpError("connect to %s: %s" % (path, e.strerror))
        if not alive():
            raise QmpError("QEMU exited before its QMP socket was ready")
        if time.monotonic() > deadline:
            raise QmpError("no QMP socket at %s in time" % path)
        time.sleep(0.02)


class Qmp:
    """One QMP connection: greeting read and capabilities negotiated."""

    def __init__(self, path, timeout=20, alive=lambda: True):
        deadline = time.monotonic() + timeout
        self.sock = connect(path, deadline, alive)
        self.buf = b""
        self.events = []
        self.last_id = 0
        try:
            # An event (RESUME as the machine starts) may come first.
            greeting = self.read_message(deadline, timeout)
            while "event" in greeting:
                self.events.append(greeting)
                greeting = self.read_message(deadline, timeout)
            if "QMP" not in greeting:
                raise QmpError("not a QMP greeting: %.100r" % greeting)
            self.command("qmp_capabilities", timeout=timeout)
        except QmpError:
            self.close()
            raise

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def read_message(self, deadline, timeout):
        """The next JSON object from QEMU, waiting until DEADLINE, TIMEOUT
        seconds from the start of the wait."""
        silent = "QEMU sent nothing within %g s" % timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QmpError(silent)
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise QmpError(silent)
            except OSError as e:
                raise QmpError("QMP socket: %s" % e.strerror)
            if not data:
                raise QmpError("QEMU closed its QMP socket")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise QmpError("QEMU sent bad JSON: %.100r"
                           % line.decode(errors="replace"))
        if not isinstance(message, dict):
            raise QmpError("QEMU sent a JSON value that is not an object")
        return message

    def command(self, name, arguments=None, timeout=30):
        """Run command NAME; its "return" value, or QmpError with QEMU's
        description.  Events that arrive first are kept (wait_event)."""
        self.last_id += 1
        request = {"execute": name, "id": self.last_id}
        if arguments:
            request["arguments"] = arguments
        deadline = time.monotonic() + timeout
        try:
            self.sock.settimeout(timeout)
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError as e:
            raise QmpError("%s: cannot send: %s" % (name, e))
        while True:
            try:
                message = self.read_message(deadline, timeout)
            except QmpError as e:
                raise QmpError("%s: %s" % (name, e))
            if "event" in message:
                self.events.append(message)
            elif message.get("id") == self.last_id:
                break
        if "error" in message:
            raise QmpError("%s: %s" % (name, message["error"].get("desc")))
        return message.get("return")

    def wait_event(self, names, timeout, match=lambda data: True):
        """The first event (kept or new) named in NAMES whose data MATCH
        accepts, taken off the queue; QmpError after TIMEOUT seconds."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for i in range(seen, len(self.events)):
                event = self.events[i]
                if event["event"] in names and match(event.get("data", {})):
                    return self.events.pop(i)
            seen = len(self.events)
            try:
                message = self.read_message(deadline, timeout)
            except QmpError as e:
                raise QmpError("waiting for %s: %s" % ("/".join(names), e))
            if "event" in message:
                self.events.append(message)
