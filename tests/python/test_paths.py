# SPDX-License-Identifier: MIT
"""sockboostlib.paths: where the files are, in a build tree and once
installed."""

import os
import unittest
from unittest import mock

from sockboostlib import paths


def environment(**values):
    """os.environ without SB_BUILD and SOCKBOOST_LIBRARY, plus VALUES."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SB_BUILD", "SOCKBOOST_LIBRARY")}
    env.update(values)
    return mock.patch.dict(os.environ, env, clear=True)


class BuildTree(unittest.TestCase):
    def test_the_source_tree_holds_the_tools(self):
        self.assertFalse(paths.INSTALLED)
        self.assertTrue(os.path.isfile(os.path.join(paths.SOURCE,
                                                    "GNUmakefile")))
        self.assertTrue(os.access(paths.sockboost(), os.X_OK))
        self.assertTrue(os.path.isfile(paths.data("benchlib/bench-throughput.gp")))

    def test_built_programs_beside_the_sources(self):
        with environment():
            self.assertEqual(paths.helper("sb-config"),
                             os.path.join(paths.SOURCE, "tools", "sb-config"))
            self.assertEqual(paths.nbd_program("sbnbd-server"),
                             os.path.join(paths.SOURCE, "nbd", "sbnbd-server"))
            self.assertEqual(paths.library(),
                             os.path.join(paths.SOURCE, "preload",
                                          "libsockboost.so"))

    def test_or_in_sb_build(self):
        with environment(SB_BUILD="/b"):
            self.assertEqual(paths.helper("sb-probe"), "/b/tools/sb-probe")
            self.assertEqual(paths.nbd_program("sbnbd-client"),
                             "/b/nbd/sbnbd-client")
            self.assertEqual(paths.library(), "/b/preload/libsockboost.so")

    def test_the_library_the_dispatcher_chose_wins(self):
        with environment(SB_BUILD="/b", SOCKBOOST_LIBRARY="/x/lib.so"):
            self.assertEqual(paths.library(), "/x/lib.so")

    def test_missing_says_how_to_get_it(self):
        inside = os.path.join(paths.SOURCE, "tools", "sb-config")
        self.assertEqual(paths.missing(inside),
                         "tools/sb-config is not built (run make)")
        self.assertEqual(paths.missing("/b/nbd/sbnbd-server"),
                         "/b/nbd/sbnbd-server is not built (run make)")


class Installed(unittest.TestCase):
    """As make install leaves the files (the placeholders substituted)."""

    def setUp(self):
        for name, value in (("INSTALLED", True), ("TOOLS", "/usr/lib/sb"),
                            ("INSTALLED_BINDIR", "/usr/bin")):
            patcher = mock.patch.object(paths, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def test_everything_in_its_directories(self):
        with environment(SB_BUILD="/ignored"):
            self.assertEqual(paths.helper("sb-config"), "/usr/lib/sb/sb-config")
            self.assertEqual(paths.nbd_program("sbnbd-server"),
                             "/usr/bin/sbnbd-server")
            self.assertEqual(paths.library(), "/usr/lib/sb/libsockboost.so")
            self.assertEqual(paths.sockboost(), "/usr/bin/sockboost")
            self.assertEqual(paths.data("bench-migration.gp"),
                             "/usr/lib/sb/bench-migration.gp")

    def test_missing_is_not_a_build_step(self):
        self.assertEqual(paths.missing("/usr/lib/sb/sb-config"),
                         "/usr/lib/sb/sb-config is missing")


if __name__ == "__main__":
    unittest.main()
