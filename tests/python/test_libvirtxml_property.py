# SPDX-License-Identifier: MIT
"""sockboostlib.libvirtxml on generated domain definitions (domaingen):
enable puts the entries exactly where libvirt puts them and changes
nothing else; disable gives the definition back byte for byte; and
after a user's edits of the entries, it takes out only what enable set
as it set it, warning about each variable changed since.  The entries
of a sockboost that kept no record go too, exactly those, and only
while their LD_PRELOAD is exactly the library's path; our lines where
they are no entries (comments, CDATA, nested blocks) are never taken
for them.

SB_PROPERTY_CASES cases (default 3000) from SB_PROPERTY_SEED (default:
a new one each run).  A failing case names its seed and the command
that runs it alone."""

import os
import random
import unittest

import domaingen
from sockboostlib import decisions, libvirtxml, paths

CASES = int(os.environ.get("SB_PROPERTY_CASES", "3000"))
SEED = int(os.environ.get("SB_PROPERTY_SEED") or
           random.SystemRandom().randrange(1 << 31))
REPLAY = ("SB_PROPERTY_SEED=%d SB_PROPERTY_CASES=1 "
          "tests/python/run test_libvirtxml_property.py")


def check(seed, variables):
    """Raise AssertionError (or the editor's exception) unless the
    properties hold for the definition of SEED; VARIABLES: the
    library's."""
    d, entries = domaingen.case(seed)
    original = d.render()
    record = (libvirtxml.RECORD, domaingen.record(entries))
    enabled = libvirtxml.enable(original, entries)
    assert enabled == d.render(entries + [record]), \
        "enable made:\n%s\ninstead of:\n%s" % (enabled,
                                               d.render(entries + [record]))
    back, taken, warnings = libvirtxml.disable(enabled, variables)
    assert back == original, "disable made:\n%s\nof:\n%s" % (back, enabled)
    assert taken == entries and not warnings, (taken, warnings)
    rng = random.Random(seed)
    changed, kept, warned = domaingen.user_edits(rng, entries)
    if changed != entries:      # else the text enabled, checked above
        edited = d.render(changed + [record])
        back, _, warnings = libvirtxml.disable(edited, variables)
        assert back == d.render(kept), \
            "disable made:\n%s\nof the edited:\n%s\ninstead of:\n%s" % (
                back, edited, d.render(kept))
        assert len(warnings) == warned, (warnings, warned)
    check_older_form(d, entries, variables, rng)


def check_older_form(d, entries, variables, rng):
    """The older form: our lines that are no entries (comments, CDATA,
    nested blocks) stay, as the user's entries do."""
    written, left, older = domaingen.older_form(rng, entries)
    text = d.render(written)
    if not older:
        try:
            libvirtxml.disable(text, variables)
        except libvirtxml.NotEnabled:
            return
        raise AssertionError("disable took entries of:\n%s" % text)
    back, taken, warnings = libvirtxml.disable(text, variables)
    assert back == d.render(left), \
        "disable made:\n%s\nof the older form:\n%s\ninstead of:\n%s" % (
            back, text, d.render(left))
    assert taken == entries and not warnings, (taken, warnings)


class GeneratedDefinitions(unittest.TestCase):
    def test_enable_then_disable_gives_back_exactly(self):
        if not os.access(paths.helper("sb-config"), os.X_OK):
            self.skipTest("sb-config is not built (make)")
        variables = decisions.variables()
        for seed in range(SEED, SEED + CASES):
            try:
                check(seed, variables)
            except Exception as e:
                self.fail("case %d: %s: %s\nreplay: %s" % (
                    seed, type(e).__name__, e, REPLAY % seed))


if __name__ == "__main__":
    unittest.main()
