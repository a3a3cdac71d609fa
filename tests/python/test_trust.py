# SPDX-License-Identifier: MIT
"""sockboostlib.trust: which files a tool run as root may open, trust
and run, and how it runs them."""

import os
import shutil
import stat
import tempfile
import unittest

from sockboostlib import trust


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.file = os.path.join(self.dir, "f")
        with open(self.file, "w") as f:
            f.write("data\n")

    def opened(self, path):
        fd = trust.open_trusted(path)
        self.addCleanup(os.close, fd)
        return fd

    def untrusted(self, path, why):
        with self.assertRaises(trust.Untrusted) as e:
            self.opened(path)
        self.assertEqual(str(e.exception), why)

    def test_our_own_file_in_our_own_directories(self):
        fd = self.opened(self.file)
        self.assertEqual(os.read(fd, 10), b"data\n")
        self.assertEqual(os.fstat(fd).st_ino, os.stat(self.file).st_ino)

    def test_writable_by_others(self):
        os.chmod(self.file, 0o646)
        self.untrusted(self.file, self.file + " may be written by others")
        os.chmod(self.file, 0o664)
        self.untrusted(self.file, self.file + " may be written by its group")

    def test_a_directory_writable_by_others_unless_sticky(self):
        os.chmod(self.dir, 0o777)
        self.untrusted(self.file, self.dir + " may be written by others")
        os.chmod(self.dir, 0o1777)
        self.opened(self.file)

    def test_another_users_file_or_directory(self):
        if os.geteuid() != 0:
            self.skipTest("needs root, to give a file to another user")
        os.chown(self.file, 65534, 65534)
        self.untrusted(self.file, self.file + " belongs to uid 65534")
        os.chown(self.file, 0, 0)
        os.chown(self.dir, 65534, 65534)
        self.untrusted(self.file, self.dir + " belongs to uid 65534")

    def test_no_link_is_followed(self):
        link = os.path.join(self.dir, "link")
        os.symlink(self.file, link)
        self.untrusted(link, link + " is a symbolic link")
        os.symlink(self.dir, link + "-dir")
        self.untrusted(link + "-dir/f", link + "-dir is a symbolic link")

    def test_only_plain_absolute_paths_to_regular_files(self):
        self.untrusted("f", "f is not an absolute path")
        self.untrusted(self.dir + "/../x", self.dir + "/../x is not a plain "
                       "path to a file")
        self.untrusted(self.dir, self.dir + " is not a regular file")
        with self.assertRaises(FileNotFoundError):
            self.opened(os.path.join(self.dir, "missing"))


class Running(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.program = os.path.join(self.dir, "prog")
        with open(self.program, "w") as f:
            f.write('#!/bin/sh\necho "$0|$SECRET|$PWD|$*"\n')
        os.chmod(self.program, 0o755)

    def test_runnable_only_as_the_same_file(self):
        fd = trust.open_trusted(self.program)
        self.addCleanup(os.close, fd)
        trust.runnable(fd, self.program)
        other = os.path.join(self.dir, "other")
        shutil.copy(self.program, other)
        with self.assertRaises(trust.Untrusted) as e:
            trust.runnable(fd, other)
        self.assertEqual(str(e.exception), "%s on this host is not the file "
                         "the process runs" % other)

    def test_the_opened_file_runs_from_slash_without_our_environment(self):
        shell = os.path.join(self.dir, "sh")
        shutil.copy("/bin/sh", shell)
        fd = trust.open_trusted(shell)
        self.addCleanup(os.close, fd)
        os.environ["SECRET"] = "ours"
        self.addCleanup(os.environ.pop, "SECRET")
        # The name may point elsewhere now: what was opened runs.
        os.replace(self.program, shell)
        out = trust.run_opened(fd, "qemu-nbd", [
            "-c", 'echo "$SECRET|$PWD|$(tr "\\0" " " </proc/$$/cmdline)"'],
            timeout=10)
        self.assertEqual(out.decode().split(" -c ")[0], "|/|qemu-nbd")

    def test_the_check_mode_bits(self):
        st = os.stat(self.program)
        trust.check(st, "x")
        fake = os.stat_result((stat.S_IFDIR | 0o1777,) + tuple(st)[1:])
        trust.check(fake, "x")
        fake = os.stat_result((stat.S_IFREG | 0o1777,) + tuple(st)[1:])
        with self.assertRaises(trust.Untrusted):
            trust.check(fake, "x")


if __name__ == "__main__":
    unittest.main()
