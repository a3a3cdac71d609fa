# SPDX-License-Identifier: MIT
"""The version rule (sockboostlib.programs.version_of, packages): a
program is run for its version only when trust.py allows it; else the
package database gives it, for the very file a package installed; else
it is unknown, saying why."""

import os
import shutil
import tempfile
import unittest

from sockboostlib import packages, programs


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, 0o755)


class Rule(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.mark = os.path.join(self.dir, "ran")
        self.program = os.path.join(self.dir, "qemu-nbd")
        script(self.program, 'touch "%s"\necho "qemu-nbd 7.2.0"\n' % self.mark)

    def version(self, path=None):
        fd = os.open(self.program, os.O_RDONLY)
        self.addCleanup(os.close, fd)
        return programs.version_of("qemu-nbd", fd, path or self.program)

    def test_a_trusted_program_prints_it(self):
        self.assertEqual(self.version(),
                         programs.Version("7.2.0", programs.PRINTED))
        self.assertTrue(os.path.exists(self.mark))

    def test_an_untrusted_one_is_not_run(self):
        os.chmod(self.dir, 0o777)
        self.assertEqual(self.version(), programs.Version(
            None, "not run: %s may be written by others; no package "
            "installed that file" % self.dir))
        self.assertFalse(os.path.exists(self.mark))

    def test_nor_one_that_its_name_does_not_give_here(self):
        other = os.path.join(self.dir, "other")
        shutil.copy(self.program, other)
        self.assertEqual(self.version(other).number, None)
        self.assertFalse(os.path.exists(self.mark))

    def test_nor_one_that_cannot_be_opened(self):
        self.assertEqual(programs.version_of("qemu-nbd", None, self.program),
                         programs.Version(None, "not run: its file cannot "
                                          "be opened"))

    def test_one_that_prints_no_version(self):
        script(self.program, "echo no version here\n")
        self.assertEqual(self.version(), programs.Version(
            None, "it printed no version"))

    def test_which_line_holds_the_version(self):
        script(self.program, 'echo "nbdcopy 1.14.2"\necho "libnbd 1.16.0"\n')
        fd = os.open(self.program, os.O_RDONLY)
        self.addCleanup(os.close, fd)
        self.assertEqual(programs.printed_version("nbdcopy", fd).number,
                         "1.16.0")
        self.assertEqual(programs.printed_version("qemu-img", fd).number,
                         "1.14.2")


class PackageDatabase(unittest.TestCase):
    """On Debian: a system program's own package, by its MD5 sum."""

    def setUp(self):
        if not shutil.which("dpkg-query") or not packages.dpkg_owner(
                "/bin/ls"):
            self.skipTest("needs Debian's package database")
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.copy = os.path.join(self.dir, "ls")
        shutil.copy("/bin/ls", self.copy)

    def installed(self, path="/usr/bin/ls"):
        fd = os.open(self.copy, os.O_RDONLY)
        self.addCleanup(os.close, fd)
        return packages.installed(fd, path)

    def test_the_packaged_file_has_its_packages_version(self):
        # dpkg knows /bin/ls (merged /usr): the alias is asked too.
        package, version, number = self.installed()
        self.assertEqual(package, "coreutils")
        self.assertEqual(number, packages.upstream_version(version))
        self.assertTrue(number)

    def test_another_file_has_none(self):
        with open(self.copy, "ab") as f:
            f.write(b"x")
        self.assertIsNone(self.installed())

    def test_a_path_no_package_installed_has_none(self):
        self.assertIsNone(self.installed(self.copy))

    def test_patterns_are_not_looked_up(self):
        self.assertIsNone(packages.dpkg_owner("/usr/bin/l*"))
        self.assertIsNone(packages.dpkg_owner("usr/bin/ls"))

    def test_why_it_was_not_run_goes_with_it(self):
        fd = os.open(self.copy, os.O_RDONLY)
        self.addCleanup(os.close, fd)
        v = programs.packaged_version(fd, "/usr/bin/ls", "not run: why")
        self.assertRegex(v.source, r"^from package coreutils \S+ "
                         r"\(not run: why\)$")


class UpstreamVersions(unittest.TestCase):
    def test_forms(self):
        for debian, upstream in (("1:7.2+dfsg-7+deb12u18+b3", "7.2"),
                                 ("1.14.2-1", "1.14.2"), ("1:3.24-1.1", "3.24"),
                                 ("1.32.5-1", "1.32.5"), ("9.1-1", "9.1"),
                                 ("2", None), ("", None), ("x1.2", None)):
            with self.subTest(debian=debian):
                self.assertEqual(packages.upstream_version(debian), upstream)

    def test_the_merged_usr_alias(self):
        self.assertEqual(packages.unmerged("/usr/bin/qemu-nbd"),
                         "/bin/qemu-nbd")
        self.assertEqual(packages.unmerged("/opt/x"), "/opt/x")


if __name__ == "__main__":
    unittest.main()
