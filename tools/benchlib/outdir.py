# SPDX-License-Identifier: MIT
"""The benchmark's output directory, safe to write as root.

sockboost bench is often run as root, in whatever directory the user is
in.  Whoever owns the output directory could plant a link at runs.csv,
results.md or a plot's name and have root overwrite the file it names,
or swap a file between a check and an open.  So the directory must be
owned by the user running the bench (or by root), and every file is
created under a new random name with O_EXCL|O_NOFOLLOW, relative to the
directory's descriptor, then renamed over its final name: a link there
is replaced, never followed.
"""

import os
import pwd
import secrets

FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class OutDirError(Exception):
    """The output directory cannot be written safely; says why."""


def owner_name(uid):
    try:
        return "%s (uid %d)" % (pwd.getpwuid(uid).pw_name, uid)
    except KeyError:
        return "uid %d" % uid


class OutDir:
    def __init__(self, path):
        self.path = path
        if os.path.islink(path):
            raise OutDirError("%s: a symbolic link: refusing to follow it "
                              "(give the directory itself)" % path)
        if not os.path.lexists(path):
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            os.mkdir(path, 0o755)
        # O_NOFOLLOW again: the name may have become a link since.
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY
                          | os.O_NOFOLLOW | os.O_CLOEXEC)
        self.check_owner(os.fstat(self.fd))

    def check_owner(self, st):
        me = os.geteuid()
        if st.st_uid not in (me, 0):
            os.close(self.fd)
            raise OutDirError(
                "%s: the directory is owned by %s, not by %s: refusing to "
                "write there, since its owner could turn any file in it "
                "into a link to one of yours (choose --out DIR, a directory "
                "of your own)" % (self.path, owner_name(st.st_uid),
                                  owner_name(me)))

    def name(self, name):
        """NAME's path, for messages."""
        return os.path.join(self.path, name)

    def create(self, name):
        """A new file NAME, open for writing as text; whatever was at NAME
        (a file, a link) is replaced, not followed."""
        temp = ".%s.%s" % (name, secrets.token_hex(8))
        fd = os.open(temp, FLAGS, 0o644, dir_fd=self.fd)
        try:
            os.rename(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except OSError:
            os.unlink(temp, dir_fd=self.fd)
            os.close(fd)
            raise
        return os.fdopen(fd, "w", newline="")

    def write(self, name, data):
        """Create NAME holding DATA (text or bytes)."""
        with self.create(name) as f:
            if isinstance(data, bytes):
                f.buffer.write(data)
            else:
                f.write(data)

    def close(self):
        os.close(self.fd)
