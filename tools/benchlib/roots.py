# SPDX-License-Identifier: MIT
"""--root DIR: the qemu, nbdcopy and tcp workloads also run with the NBD
programs of another root file system (a chroot, such as the ones make
check-compat caches), side by side with this machine's in one run.

A run with a root is a configuration named LABEL:CONFIG ("sid:2M",
"trixie:default"), interleaved with the others.  Its NBD programs run as
chroot DIR PROGRAM, with everything they touch at the same path as for
the benchmark: in a private mount namespace (the benchmark re-executes
itself under unshare --mount) each root gets /proc, the host's /dev
(with /dev/shm, where the data lives), the host's temporary directory
(sockets, pid files, certificates) and the build tree (the library),
all of it gone with the namespace.  Needs root.
"""

import atexit
import os
import subprocess
import sys
import tempfile

from sockboostlib import paths

# The workloads that can run with a root's programs.
ROOTED_WORKLOADS = ("qemu", "nbdcopy", "tcp", "migration")
# Set in the environment of the re-executed benchmark.
NAMESPACE_MARK = "SOCKBOOST_BENCH_NAMESPACE"


class Root:
    def __init__(self, label, path):
        self.label, self.path = label, path


def parse_root(text):
    """A Root from "DIR" (labelled by its last component) or "LABEL=DIR".
    Raises ValueError saying what is wrong."""
    label, sep, path = text.partition("=")
    if not sep:
        label, path = "", text
    path = os.path.realpath(path)
    label = label or os.path.basename(path)
    if not label or not label.replace("-", "").replace("_", "").isalnum():
        raise ValueError("bad root label %r (letters, digits, - and _)" % label)
    if path == "/" or not os.path.isdir(os.path.join(path, "usr", "bin")):
        raise ValueError("%s is not a root file system (no usr/bin)" % path)
    return Root(label, path)


def split(config):
    """(root label or None, configuration) of a configuration name."""
    label, sep, rest = config.rpartition(":")
    return (label, rest) if sep else (None, config)


def expand(configs, roots):
    """CONFIGS, then each root's copy of them; the reference (a server of
    this machine that needs no library) only once."""
    return configs + ["%s:%s" % (r.label, c) for r in roots
                      for c in configs if c != "reference"]


def enter_namespace(roots, argv):
    """Re-execute the benchmark in a private mount namespace (once), then
    mount what the roots' programs need; unmounted again at exit."""
    if os.environ.get(NAMESPACE_MARK) != str(os.getpid()):
        if os.geteuid() != 0:
            raise OSError("--root needs root (chroot and a private mount "
                          "namespace)")
        if not root_is_mount_point():
            raise OSError("--root needs / to be a mount point, to make a "
                          "private mount namespace; here it is not (a chroot?): "
                          "run the benchmark outside the chroot, or bind-mount "
                          "the chroot's directory onto itself before entering it")
        # Without --fork, unshare execs in this very process: the mark is
        # this pid, which a program the benchmark starts does not have.
        env = dict(os.environ, **{NAMESPACE_MARK: str(os.getpid())})
        os.execvpe("unshare", ["unshare", "--mount", "--propagation",
                               "private", "--", sys.executable,
                               os.path.realpath(sys.argv[0])] + argv, env)
    mounted = []
    atexit.register(unmount, mounted)
    tree = paths.TOOLS if paths.INSTALLED else paths.SOURCE
    library_dir = os.path.dirname(paths.library())
    shared = [tempfile.gettempdir(), tree]
    if not library_dir.startswith(tree + os.sep):
        shared.append(library_dir)
    for root in roots:
        mount(mounted, ["-t", "proc", "proc"], root.path + "/proc")
        mount(mounted, ["--rbind", "/dev"], root.path + "/dev")
        for path in shared:
            mount(mounted, ["--bind", path], root.path + path)
        # The build tree is only read there.
        for path in shared[1:]:
            run_mount(["-o", "remount,bind,ro", root.path + path])


def root_is_mount_point():
    """False where / is not a mount point (a plain chroot), in which
    unshare --propagation private fails; True when it cannot tell."""
    try:
        with open("/proc/self/mountinfo") as f:
            return any(line.split()[4] == "/" for line in f)
    except OSError:
        return True


def mount(mounted, args, target):
    os.makedirs(target, exist_ok=True)
    run_mount(args + [target])
    mounted.append(target)


def run_mount(args):
    r = subprocess.run(["mount"] + args, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise OSError("mount %s: %s" % (args[-1], r.stderr.strip()))


def unmount(mounted):
    for target in reversed(mounted):
        subprocess.run(["umount", "-R", target], stderr=subprocess.DEVNULL)
    del mounted[:]
