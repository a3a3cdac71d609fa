# SPDX-License-Identifier: MIT
"""sockboostlib.libvirtxml on generated domain definitions (domaingen):
enable puts the entries exactly where libvirt puts them and changes
nothing else; disable gives the definition back byte for byte; and
after a user's edits of the entries, it takes out only what enable set
as it set it, warning about each variable changed since.

SB_PROPERTY_CASES cases (default 3000) from SB_PROPERTY_SEED (default:
a new one each run).  A failing case names its seed and the command
that runs it alone."""

import os
import random
import unittest

import domaingen
from sockboostlib import libvirtxml

CASES = int(os.environ.get("SB_PROPERTY_CASES", "3000"))
SEED = int(os.environ.get("SB_PROPERTY_SEED") or
           random.SystemRandom().randrange(1 << 31))
REPLAY = ("SB_PROPERTY_SEED=%d SB_PROPERTY_CASES=1 "
          "tests/python/run test_libvirtxml_property.py")


def check(seed):
    """Raise AssertionError (or the editor's exception) unless the three
    properties hold for the definition of SEED."""
    d, entries = domaingen.case(seed)
    original = d.render()
    record = (libvirtxml.RECORD, domaingen.record(entries))
    enabled = libvirtxml.enable(original, entries)
    assert enabled == d.render(entries + [record]), \
        "enable made:\n%s\ninstead of:\n%s" % (enabled,
                                               d.render(entries + [record]))
    back, taken, warnings = libvirtxml.disable(enabled)
    assert back == original, "disable made:\n%s\nof:\n%s" % (back, enabled)
    assert taken == entries and not warnings, (taken, warnings)
    changed, kept, warned = domaingen.user_edits(random.Random(seed),
                                                 entries)
    edited = d.render(changed + [record])
    back, _, warnings = libvirtxml.disable(edited)
    assert back == d.render(kept), \
        "disable made:\n%s\nof the edited:\n%s\ninstead of:\n%s" % (
            back, edited, d.render(kept))
    assert len(warnings) == warned, (warnings, warned)


class GeneratedDefinitions(unittest.TestCase):
    def test_enable_then_disable_gives_back_exactly(self):
        for seed in range(SEED, SEED + CASES):
            try:
                check(seed)
            except Exception as e:
                self.fail("case %d: %s: %s\nreplay: %s" % (
                    seed, type(e).__name__, e, REPLAY % seed))


if __name__ == "__main__":
    unittest.main()
