#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Drive tools/benchlib/qmp.py against a fake QEMU that follows a script,
for migration-qmp-client.bats:

  migration-fake-qmp.py SCENARIO

The fake listens on a unix socket in a scratch directory; for each line
it reads from the client it sends the scenario's next lines (JSON, or
nothing).  The client's results go to stdout, one line each:
"reply VALUE", "event NAME", "error MESSAGE", with "after N.N s" for
errors."""

import json
import os
import socket
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                "..", "tools"))

from benchlib.qmp import Qmp, QmpError     # noqa: E402

GREETING = {"QMP": {"version": {"qemu": {"major": 7, "minor": 2,
                                         "micro": 0}}, "capabilities": []}}


def event(name, **data):
    return {"event": name, "data": data,
            "timestamp": {"seconds": 0, "microseconds": 0}}


# Per scenario: what the fake sends on connecting, then after each line
# it reads (None: it closes the connection); and what the client does.
SCENARIOS = {
    # An event before the greeting, events between a command and its
    # reply: all kept, in order, for wait_event.
    "events": ([event("RESUME"), GREETING],
               [[{"return": {}, "id": 1}],
                [event("JOB_STATUS_CHANGE", id="copy"),
                 event("BLOCK_JOB_READY", device="copy"),
                 event("BLOCK_JOB_READY", device="other"),
                 {"return": {"n": 1}, "id": 2}]]),
    "error": ([GREETING], [[{"return": {}, "id": 1}],
                           [{"error": {"class": "GenericError",
                                       "desc": "no such node"}, "id": 2}]]),
    # A reply that never comes.
    "silent": ([GREETING], [[{"return": {}, "id": 1}], []]),
    "closed": ([GREETING], [[{"return": {}, "id": 1}], None]),
    "garbage": ([GREETING], [[{"return": {}, "id": 1}], ["not json"]]),
    "no-greeting": ([{"return": {}}], []),
}


def send(conn, messages):
    for m in messages:
        text = m if isinstance(m, str) else json.dumps(m)
        conn.sendall(text.encode() + b"\n")


def fake_qemu(listener, first, answers):
    conn, _ = listener.accept()
    with conn:
        send(conn, first)
        reader = conn.makefile("rb")
        for answer in answers:
            if not reader.readline() or answer is None:
                return
            send(conn, answer)
        # Hold the connection until the client is done.
        reader.read()


def client(path, scenario):
    q = Qmp(path, timeout=5)
    try:
        print("reply %s" % json.dumps(q.command("query-status", timeout=1)))
        if scenario == "events":
            e = q.wait_event(("BLOCK_JOB_READY",), 1,
                             lambda data: data.get("device") == "other")
            print("event %s %s" % (e["event"], e["data"]["device"]))
            for name in ("RESUME", "BLOCK_JOB_READY", "JOB_STATUS_CHANGE"):
                print("event %s" % q.wait_event((name,), 1)["event"])
            q.wait_event(("BLOCK_JOB_READY",), 0.5)
    finally:
        q.close()


def main(scenario):
    first, answers = SCENARIOS[scenario]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qmp.sock")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        listener.listen(1)
        threading.Thread(target=fake_qemu, args=(listener, first, answers),
                         daemon=True).start()
        start = time.monotonic()
        try:
            client(path, scenario)
        except QmpError as e:
            print("error %s after %.1f s" % (e, time.monotonic() - start))


if __name__ == "__main__":
    main(sys.argv[1])
