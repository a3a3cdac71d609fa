# SPDX-License-Identifier: MIT
"""sockboostlib.decisions: sb-config's answers read as they are, and
asked of the built sb-config."""

import os
import unittest
from unittest import mock

from sockboostlib import decisions, paths

OUTPUT = """\
version\t0.1.0
settings\tsettings: sndbuf 2097152, force auto, nodelay 1, cork auto
sndbuf\t2097152
nodelay\t1
cork\t0
scope\tnbd
invalid\tSOCKBOOST_CORK\tmaybe\tauto or off
warning\tignoring SOCKBOOST_CORK='maybe': expected auto or off
warnings_printed\t0
wmem_default\t212992
wmem_max\t-1
can_force\t0
before\t212992
request\t2097152
option\tSO_SNDBUF
clipped\t1
tb\t425984
"""


class Parse(unittest.TestCase):
    def test_every_field_in_its_type(self):
        d = decisions.parse(OUTPUT)
        self.assertEqual((d.version, d.sndbuf, d.nodelay, d.cork, d.scope,
                          d.wmem_max, d.can_force, d.option, d.clipped, d.tb),
                         ("0.1.0", 2097152, True, False, "nbd", -1, False,
                          "SO_SNDBUF", True, 425984))
        self.assertFalse(d.warnings_printed)

    def test_warnings_and_invalid_values_in_order(self):
        d = decisions.parse(OUTPUT)
        self.assertEqual(d.warnings, ["ignoring SOCKBOOST_CORK='maybe': "
                                      "expected auto or off"])
        self.assertEqual(d.invalid, [("SOCKBOOST_CORK", "maybe", "auto or off")])

    def test_a_missing_field_is_an_error_not_a_default(self):
        with self.assertRaises(KeyError):
            decisions.parse(OUTPUT.replace("tb\t425984\n", ""))


def clean_env(**values):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SOCKBOOST_")}
    env.update(values)
    return env


class Ask(unittest.TestCase):
    def setUp(self):
        if not os.access(paths.helper("sb-config"), os.X_OK):
            self.skipTest("sb-config is not built (make)")

    def test_the_library_decides_from_the_environment_given(self):
        d = decisions.ask(env=clean_env(SOCKBOOST_SNDBUF="off"))
        self.assertEqual((d.request, d.option), (0, "none"))
        d = decisions.ask(env=clean_env(SOCKBOOST_SNDBUF="1M"),
                          can_force=False, before=4096)
        self.assertEqual((d.sndbuf, d.before, d.can_force), (1 << 20, 4096,
                                                             False))

    def test_a_missing_helper_is_a_failure(self):
        with mock.patch.dict(os.environ, SB_BUILD="/nonexistent"), \
                self.assertRaisesRegex(decisions.HelperError,
                                       "/nonexistent/tools/sb-config"):
            decisions.ask()

    def test_changes_buffer(self):
        decisions.changes_buffer.cache_clear()
        wmem_default = decisions.ask(env=clean_env()).wmem_default
        # Doubled, a request at or below half the default changes nothing.
        self.assertFalse(decisions.changes_buffer(str(wmem_default // 2)))
        self.assertTrue(decisions.changes_buffer(str(wmem_default)))


if __name__ == "__main__":
    unittest.main()
