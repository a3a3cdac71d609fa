# SPDX-License-Identifier: MIT
"""The unix stream and TCP sockets of one process, as ss sees them: state,
send buffer (tb), addresses and the processes at the other end.

Sockets are matched to the process by the inodes of its descriptors
(found through process.Process, which reads nothing by pid number), so a
name ss cannot print on one line does not lose its socket.  One parse of
ss for sockboost status, doctor's self-test and the demo:

    with Process(pid) as p:
        for s in p.sockets():
            print(s.type, s.fds, s.state, s.tb, s.local)
"""

import dataclasses
import re
import subprocess

# users:(("name",pid=1,fd=2),...): a name may hold an escaped quote.
USER_RE = re.compile(r'\("((?:[^"\\]|\\.)*)",pid=(\d+),fd=\d+\)')
SKMEM_RE = re.compile(r" skmem:\(([^)]*)\)")
USERS_RE = re.compile(r" users:\((\(.*\))\)")
# "u_str STATE RQ SQ" then "LOCAL INODE PEER PEER-INODE": LOCAL may hold
# blanks, so it is what lies between.
UNIX_HEAD_RE = re.compile(r"^u_str +(\S+) +\d+ +\d+ +")
UNIX_TAIL_RE = re.compile(r" +(\d+) +\S+ +(\d+) *$")


@dataclasses.dataclass
class Process:
    name: str
    pid: int


@dataclasses.dataclass
class Socket:
    type: str                  # "unix" or "tcp"
    fds: list                  # the process's descriptors for it
    state: str                 # "ESTAB", "LISTEN", ...
    local: str                 # None for an unnamed unix socket
    inode: int
    tb: int                    # send buffer, None when ss shows none
    peer: str                  # a TCP peer's address, None for unix
    peer_inode: int            # a unix peer's inode, None for TCP
    peer_processes: list       # Process, each once

    @property
    def connected(self):
        """Whether a peer is at the other end (not listening)."""
        if self.type == "unix":
            return self.peer_inode != 0
        return not self.peer.endswith(":*")


class SsError(Exception):
    """ss is missing or failed."""


def ss_records(*args):
    """The records ss prints with ARGS, each joined into one string: ss
    puts TCP's skmem on an indented line of its own, and a name holding
    a newline cuts its record in two."""
    try:
        out = subprocess.run(["ss"] + list(args), stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SsError("ss %s: %s" % (" ".join(args), e))
    records = []
    for line in out.decode("utf-8", "surrogateescape").split("\n")[1:]:
        if re.match(r"^(u_[a-z]+|[A-Z][A-Z0-9-]*) ", line):
            records.append(line)
        elif records and line[:1] in (" ", "\t"):
            records[-1] += " " + line[1:]
        elif records and line:
            records[-1] += "\n" + line
    return records


def split_extras(record):
    """RECORD without its users and skmem fields; its processes and tb."""
    tb = None
    skmem = SKMEM_RE.search(record)
    if skmem:
        record = record[:skmem.start()] + record[skmem.end():]
        found = re.search(r"(?:^|,)tb(\d+)", skmem.group(1))
        tb = int(found.group(1)) if found else None
    processes = []
    users = USERS_RE.search(record)
    if users:
        record = record[:users.start()] + record[users.end():]
        for name, pid in USER_RE.findall(users.group(1)):
            if all(p.pid != int(pid) for p in processes):
                processes.append(Process(name.replace('\\"', '"'), int(pid)))
    return record, processes, tb


def unix_sockets(fds):
    """The unix stream sockets whose inodes are in FDS."""
    mine, users_of = [], {}
    for record in ss_records("-xapmn"):
        if not record.startswith("u_str "):
            continue
        rest, processes, tb = split_extras(record)
        head, tail = UNIX_HEAD_RE.match(rest), UNIX_TAIL_RE.search(rest)
        if not head or not tail:
            continue
        inode, peer_inode = int(tail.group(1)), int(tail.group(2))
        users_of[inode] = processes
        if inode in fds:
            local = rest[head.end():tail.start()].lstrip(" ")
            mine.append(Socket("unix", fds[inode], head.group(1),
                               None if local == "*" else local, inode, tb,
                               None, peer_inode, []))
    for s in mine:
        s.peer_processes = users_of.get(s.peer_inode, [])
    return mine


def tcp_sockets(fds):
    """The TCP sockets whose inodes are in FDS; a peer on this host is
    found by its own record, the same addresses the other way round."""
    mine, users_of = [], {}
    for record in ss_records("-tapmen"):
        rest, processes, tb = split_extras(record)
        fields = rest.split()
        inode = re.search(r" ino:(\d+)", rest)
        if len(fields) < 5 or not inode:
            continue
        state, local, peer = fields[0], fields[3], fields[4]
        users_of[(local, peer)] = processes
        if int(inode.group(1)) in fds:
            mine.append(Socket("tcp", fds[int(inode.group(1))], state, local,
                               int(inode.group(1)), tb, peer, None, []))
    for s in mine:
        s.peer_processes = users_of.get((s.peer, s.local), [])
    return mine


def sockets_of(fds):
    """The unix stream and TCP sockets of FDS ({inode: [fd, ...]}, what
    process.Process.socket_fds finds), by their first descriptor.
    Raises SsError when ss fails."""
    found = unix_sockets(fds) + tcp_sockets(fds)
    return sorted(found, key=lambda s: s.fds[0])


def process_sockets(pid):
    """The sockets of PID, a child of the caller's (which no other
    process can take the pid of while unreaped), asked of it as
    process.Process does for any process."""
    from .process import Process        # which imports this module
    with Process(pid) as p:
        return p.sockets()
