# SPDX-License-Identifier: MIT
"""sockboostlib.libvirtxml, case by case: where enable writes, what
disable takes and leaves, what neither is fooled by, what both refuse,
and the check before define.  test_libvirtxml_property.py runs the
generated cases."""

import unittest

from sockboostlib import libvirtxml as lx

NS = lx.QEMU_NS
LIB = "/usr/lib/sockboost/libsockboost.so"
ENTRIES = [("LD_PRELOAD", LIB), ("SOCKBOOST_SNDBUF", "4M")]
# The library's variables, as far as these cases need them.
VARIABLES = ("SOCKBOOST_SNDBUF", "SOCKBOOST_DEBUG")
RECORD_LINE = ("    <qemu:env name='SOCKBOOST_LIBVIRT_ENABLED' value='"
               "LD_PRELOAD=%s SOCKBOOST_SNDBUF=4M'/>\n" % LIB)
PLAIN = """<domain type='kvm'>
  <name>vm</name>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
  </devices>
</domain>
"""


def with_block(inner, tail="", ns=" xmlns:qemu='%s'" % NS):
    """PLAIN with a top-level block holding INNER, then TAIL."""
    return PLAIN.replace("<domain type='kvm'>", "<domain type='kvm'%s>" % ns
                         ).replace("</domain>", "  <qemu:commandline>\n" +
                                   inner + "  </qemu:commandline>\n" + tail +
                                   "</domain>")


OURS = ("    <qemu:env name='LD_PRELOAD' value='%s'/>\n"
        "    <qemu:env name='SOCKBOOST_SNDBUF' value='4M'/>\n" % LIB +
        RECORD_LINE)


class Enable(unittest.TestCase):
    def test_where_libvirt_writes_it(self):
        self.assertEqual(lx.enable(PLAIN, ENTRIES), with_block(OURS))

    def test_at_the_end_of_the_users_block(self):
        own = "    <qemu:arg value='-no-user-config'/>\n"
        self.assertEqual(lx.enable(with_block(own), ENTRIES),
                         with_block(own + OURS))

    def test_before_the_other_qemu_elements(self):
        caps = ("  <qemu:capabilities>\n    <qemu:del capability='x'/>\n"
                "  </qemu:capabilities>\n")
        plain = PLAIN.replace("<domain type='kvm'>", "<domain type='kvm' "
                              "xmlns:qemu='%s'>" % NS).replace(
                                  "</domain>", caps + "</domain>")
        self.assertEqual(lx.enable(plain, ENTRIES), with_block(OURS, caps))

    def test_values_escaped_and_recorded(self):
        text = lx.enable(PLAIN, [("LD_PRELOAD", LIB), ("SOCKBOOST_LOG_FILE",
                                                        "/l/a&b 'c' <%p>")])
        self.assertIn("value='/l/a&amp;b &apos;c&apos; &lt;%p>'", text)
        self.assertEqual(lx.enabled(text, VARIABLES).entries, [
            ("LD_PRELOAD", LIB), ("SOCKBOOST_LOG_FILE", "/l/a&b 'c' <%p>")])

    def test_refused(self):
        for text, why in (
                (with_block("    <qemu:env name='LD_PRELOAD' value='x'/>\n"),
                 "sets LD_PRELOAD in its <qemu:env> already: add the library "
                 "there by hand (virsh edit)"),
                (with_block("    <qemu:env name='SOCKBOOST_SNDBUF' "
                            "value='1M'/>\n"),
                 "sets SOCKBOOST_SNDBUF in its <qemu:env> already: take it "
                 "out first (virsh edit), or leave out the option that sets "
                 "it"),
                (with_block(OURS), "is enabled already"),
                (with_block("  ", "  <qemu:commandline><qemu:arg value='x'/>"
                            "</qemu:commandline>\n"),
                 "has 2 top-level <qemu:commandline> blocks in its "
                 "definition"),
                (with_block(""), "has an empty <qemu:commandline> in its "
                 "definition, which libvirt never writes"),
                ("<!DOCTYPE domain>" + PLAIN, "has a DOCTYPE in its "
                 "definition, which libvirt never writes"),
                ("<network><name>n</name></network>", "has a definition "
                 "that is not a <domain> with elements in it"),
                (PLAIN.replace("<domain type='kvm'>", "<domain xmlns:qemu="
                               "'urn:x'>"), "binds the prefix qemu to another "
                 "namespace in its definition")):
            with self.subTest(why=why):
                with self.assertRaises(lx.Refused) as e:
                    lx.enable(text, ENTRIES)
                self.assertEqual(str(e.exception), why)
        with self.assertRaises(lx.Refused) as e:
            lx.enable(PLAIN[:-10], ENTRIES)
        self.assertRegex(str(e.exception), "^has a definition that does not "
                         "parse: ")


class NotFooled(unittest.TestCase):
    """Our lines where they are not entries: text, never edited."""

    FAKES = ("<!-- %s -->" % OURS, "<![CDATA[\n%s]]>" % OURS,
             "<app:x xmlns:app='urn:app' xmlns:qemu='%s'><qemu:commandline>"
             "\n%s</qemu:commandline></app:x>" % (NS, OURS))

    def test_metadata_comments_and_nested_blocks(self):
        for fake in self.FAKES:
            with self.subTest(fake=fake[:20]):
                text = PLAIN.replace("  <devices>", "  <metadata>%s"
                                     "</metadata>\n  <devices>" % fake)
                self.assertIsNone(lx.enabled(text, VARIABLES))
                with self.assertRaises(lx.NotEnabled):
                    lx.disable(text, VARIABLES)
                enabled = lx.enable(text, ENTRIES)
                self.assertEqual(lx.disable(enabled, VARIABLES)[0], text)

    def test_a_prefix_bound_again_inside_is_not_a_use(self):
        # The nested block binds qemu: itself; <domain>'s goes.
        text = PLAIN.replace("  <devices>", "  <metadata>%s</metadata>\n"
                             "  <devices>" % self.FAKES[2])
        enabled = lx.enable(text, ENTRIES)
        self.assertIn("<domain type='kvm' xmlns:qemu=", enabled)
        self.assertEqual(lx.disable(enabled, VARIABLES)[0], text)


class Disable(unittest.TestCase):
    def disabled(self, inner, tail=""):
        return lx.disable(with_block(inner, tail), VARIABLES)

    def test_takes_what_enable_set(self):
        self.assertEqual(self.disabled(OURS), (PLAIN, ENTRIES, []))

    def test_keeps_the_namespace_something_else_uses(self):
        caps = "  <qemu:capabilities/>\n"
        self.assertEqual(self.disabled(OURS, caps)[0], PLAIN.replace(
            "<domain type='kvm'>", "<domain type='kvm' xmlns:qemu='%s'>" % NS
        ).replace("</domain>", caps + "</domain>"))

    def test_only_the_librarys_path_from_a_joined_preload(self):
        for value, rest in (("/j.so:" + LIB, "/j.so"), (LIB + " /j.so",
                                                         "/j.so"),
                            ("/a.so:" + LIB + ":/b.so", "/a.so:/b.so"),
                            (" " + LIB, None)):
            with self.subTest(value=value):
                inner = OURS.replace("value='%s'" % LIB, "value='%s'" % value,
                                     1)
                text, taken, warnings = self.disabled(inner)
                self.assertEqual(taken, ENTRIES)
                self.assertEqual(lx.without_item(value, LIB) == rest or
                                 not rest, True)
                if rest:
                    self.assertEqual(text, with_block(
                        "    <qemu:env name='LD_PRELOAD' value='%s'/>\n"
                        % rest))
                else:
                    self.assertEqual(text, PLAIN)

    def test_leaves_what_the_user_changed_with_a_warning(self):
        inner = OURS.replace("value='4M'", "value='8M'").replace(
            "value='%s'/>" % LIB, "value='/other.so'/>", 1)
        text, taken, warnings = self.disabled(inner)
        self.assertEqual(taken, [])
        self.assertEqual(warnings, [
            "LD_PRELOAD no longer holds %s: left as it is" % LIB,
            "SOCKBOOST_SNDBUF is '8M' now, not '4M' as enable set it: left "
            "as it is"])
        self.assertEqual(text, with_block(
            "    <qemu:env name='LD_PRELOAD' value='/other.so'/>\n"
            "    <qemu:env name='SOCKBOOST_SNDBUF' value='8M'/>\n"))

    def test_a_variable_the_user_took_out_is_no_matter(self):
        inner = OURS.replace("    <qemu:env name='SOCKBOOST_SNDBUF' "
                             "value='4M'/>\n", "")
        self.assertEqual(self.disabled(inner), (PLAIN, ENTRIES[:1], []))

    def test_a_record_enable_did_not_write(self):
        for value in ("", "LD_PRELOAD", "PATH=/x", "LD_PRELOAD=a "
                      "LD_PRELOAD=b", "SOCKBOOST_LIBVIRT_ENABLED=x"):
            with self.subTest(value=value):
                with self.assertRaises(lx.Refused):
                    self.disabled("    <qemu:env name='%s' value='%s'/>\n"
                                  % (lx.RECORD, value))

    def test_preload_lists(self):
        for value, rest in (("a:b", "a"), ("b:a", "a"), ("a:b:c", "a:c"),
                            ("b", ""), ("a  b", "a"), ("b::a", "a"),
                            ("a", None), ("b:b", "b")):
            with self.subTest(value=value):
                self.assertEqual(lx.without_item(value, "b"), rest)


class OlderForm(unittest.TestCase):
    """What a sockboost that kept no record wrote: its entries, exactly."""

    OLDER = OURS.replace(RECORD_LINE, "")

    def test_taken_out_as_it_was_written(self):
        text = with_block(self.OLDER)
        found = lx.enabled(text, VARIABLES)
        self.assertIsNone(found.record)
        self.assertEqual(found.entries, ENTRIES)
        self.assertEqual(lx.disable(text, VARIABLES), (PLAIN, ENTRIES, []))

    def test_only_its_own_entries(self):
        own = ("    <qemu:env name='SOCKBOOST_LIBRARY' value='/x.so'/>\n"
               "    <qemu:arg value='-no-user-config'/>\n")
        text, taken, _ = lx.disable(with_block(own + self.OLDER + own),
                                    VARIABLES)
        self.assertEqual(taken, ENTRIES)
        self.assertEqual(text, with_block(own + own))

    def test_not_when_ld_preload_is_not_exactly_the_library(self):
        for value in ("/j.so:" + LIB, LIB + " ", "libsockboost.so",
                      LIB + ".1", "/usr/lib/libsockboost.so.d/x.so"):
            with self.subTest(value=value):
                text = with_block(self.OLDER.replace(LIB, value))
                self.assertIsNone(lx.enabled(text, VARIABLES))
                with self.assertRaises(lx.NotEnabled):
                    lx.disable(text, VARIABLES)

    def test_not_settings_alone(self):
        text = with_block(self.OLDER.split("\n", 1)[1])
        self.assertIsNone(lx.enabled(text, VARIABLES))

    def test_enable_refuses_it(self):
        with self.assertRaises(lx.Refused):
            lx.enable(with_block(self.OLDER), ENTRIES)


class CheckBeforeDefine(unittest.TestCase):
    def test_a_change_outside_is_refused(self):
        old = lx.parse(with_block(OURS).encode())
        names = [n for n, _ in ENTRIES] + [lx.RECORD]
        for new in (PLAIN, PLAIN.replace("vm", "vn"),
                    with_block("", "  <x/>\n").replace(
                        "  <qemu:commandline>\n  </qemu:commandline>\n", ""),
                    with_block("    <qemu:arg value='x'/>\n")):
            with self.subTest(new=new):
                if new == PLAIN:
                    lx.check_confined(old, lx.parse(new.encode()), names)
                    continue
                with self.assertRaises(lx.Refused):
                    lx.check_confined(old, lx.parse(new.encode()), names)


if __name__ == "__main__":
    unittest.main()
