# SPDX-License-Identifier: MIT
"""The benchmark's "host" configuration: the processes of a run in a
cgroup of the benchmark's own where sockboost host is on (its default
filter, the NBD programs), no library; its pins in a BPF file system of
the benchmark's own, so that nothing of the host's is attached, pinned
or changed.  Root only."""

import os
import subprocess
import time

from sockboostlib import hostmode, paths
from sockboostlib.measure.procs import RunError

CONFIG = "host"
# A command prefix: PREFIX + [CGROUP] + CMD runs CMD in CGROUP, as the
# same process (so that it is the one the run waits for).
IN_CGROUP = ["sh", "-c", 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"',
             "in-cgroup"]


def check():
    """(the cgroup v2 root, None) when the host configuration can be
    measured here, else (None, why), as sockboost host check says."""
    answer, why = hostmode.can_run()
    if answer is None:
        return None, why
    if not answer["can_run"]:
        return None, answer["why"]
    return answer["cgroup"], None


class Session:
    """Host mode on in a new cgroup, until close()."""

    def __init__(self, cgroup2, tmpdir):
        self.cgroup = os.path.join(cgroup2, "sockboost-bench.%d" % os.getpid())
        self.bpffs = os.path.join(tmpdir, "bpffs")
        self.pins = os.path.join(self.bpffs, "sockboost")
        os.mkdir(self.cgroup)
        os.mkdir(self.bpffs)
        try:
            run(["mount", "-t", "bpf", "bpf", self.bpffs])
            run([paths.helper("sb-host"), "enable", "--cgroup", self.cgroup,
                 "--pin-dir", self.pins])
        except RunError:
            self.close()
            raise

    def prefix(self, cmd):
        """CMD (an argv) run in the session's cgroup."""
        return IN_CGROUP + [self.cgroup] + list(cmd)

    def close(self):
        """Detach everything (unmounting the BPF file system drops the
        pins), stop what is left in the cgroup, remove it."""
        subprocess.run([paths.helper("sb-host"), "disable", "--pin-dir",
                        self.pins], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        subprocess.run(["umount", self.bpffs], stderr=subprocess.DEVNULL,
                       check=False)
        for _ in range(100):
            try:
                os.rmdir(self.cgroup)
                return
            except FileNotFoundError:
                return
            except OSError:
                kill_all(self.cgroup)
                time.sleep(0.05)


def kill_all(cgroup):
    """Stop the processes left in CGROUP (the benchmark's own)."""
    try:
        with open(os.path.join(cgroup, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if r.returncode != 0:
        raise RunError("%s failed: %s" % (" ".join(cmd[:2]),
                                           (r.stderr.strip() or "?").splitlines()[0]))
