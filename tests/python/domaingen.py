#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Domain definitions made from a seed, for the property test of
sockboostlib.libvirtxml (test_libvirtxml_property.py) and for its round
trip through a real libvirt (tests/libvirt-xml-round-trip.bats):

    tests/python/domaingen.py --libvirt SEED COUNT DIR

writes COUNT definitions that libvirt accepts, as DIR/NAME.xml.

A definition is made of pieces (its top-level elements, with their
layout), so the text that enable must make of it is known without
asking the code under test: render(entries) writes the same pieces with
the entries where libvirt puts them.  The pieces hold what the editing
must not be fooled by: our line in a comment, in <metadata> CDATA and in
a block nested in <metadata>; other namespaces; odd blanks, quotes and
line layouts; a block of the user's own with arguments, variables,
comments, CDATA and other elements."""

import functools
import random
import sys
import urllib.parse
from xml.sax.saxutils import escape

QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"
RECORD = "SOCKBOOST_LIBVIRT_ENABLED"
LIBRARY = "/usr/lib/x86_64-linux-gnu/sockboost/libsockboost.so"
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
# What enable may set besides LD_PRELOAD: values with blanks, quotes,
# '&', '<' and '%', which the record and the XML must carry.
SETTINGS = [("SOCKBOOST_CORK", "off"), ("SOCKBOOST_DEBUG", "2"),
            ("SOCKBOOST_LOG_FILE", "/var/log/sb %p & 'q' <x.log"),
            ("SOCKBOOST_SNDBUF", "4M"), ("SOCKBOOST_STATS", "1")]


@functools.lru_cache(maxsize=None)
def attr(value):
    """VALUE in single quotes, as enable writes an attribute (the same
    few values again and again: kept)."""
    return "'%s'" % escape(value, {"'": "&apos;"})


def env_tag(prefix, name, value):
    return "<%s:env name=%s value=%s/>" % (prefix, attr(name), attr(value))


def record(entries):
    """The record enable writes of ENTRIES."""
    return " ".join("%s=%s" % (name, urllib.parse.quote(value, safe="/:,+@"))
                    for name, value in entries)


OUR_LINE = env_tag("qemu", "LD_PRELOAD", LIBRARY)
OUR_RECORD = env_tag("qemu", RECORD, record([("LD_PRELOAD", LIBRARY)]))


class Piece:
    """A top-level item: its TEXT, or for the user's block the texts of
    what is in it (BLOCK); QEMU: whether it is in QEMU's namespace."""

    def __init__(self, text, qemu=False, block=None):
        self.text, self.qemu, self.block = text, qemu, block


class Definition:
    def __init__(self, rng, libvirt):
        self.rng, self.libvirt = rng, libvirt
        self.nl = rng.choice(["\n"] * 6 + ["\r\n", ""])
        self.indent = rng.choice(["  "] * 4 + ["\t", " ", "    ", ""])
        self.prefix = rng.choice(["qemu"] * 3 + ["q"])
        self.tag_end = ">" if libvirt else rng.choice([">"] * 4 + ["  >",
                                                                   "\n>"])
        self.pieces = [Piece("<name>gen-%08x</name>" % rng.getrandbits(32)),
                       Piece("<memory unit='MiB'>64</memory>")]
        if self.chance(0.6):
            self.pieces.append(Piece(self.metadata()))
        self.pieces.append(Piece("<os><type arch='x86_64' machine='pc'>hvm"
                                 "</type></os>"))
        if not libvirt and self.chance(0.5):
            self.pieces.append(Piece("<!-- %s -->" % OUR_LINE))
        self.pieces.append(Piece("<devices>%s<emulator>/usr/bin/qemu-system-"
                                 "x86_64</emulator>%s</devices>"
                                 % (self.nl, self.nl)))
        if not libvirt and self.chance(0.3):
            self.pieces.append(Piece("<o:extra o:a=\"1\"/>"))
        self.user_block = self.chance(0.5)
        if self.user_block:
            self.pieces.append(Piece(None, True, self.block_items()))
        if self.chance(0.4):
            self.pieces.append(Piece(
                "<%s:capabilities%%s>%s<%s:del capability='usb-redir'/>%s"
                "</%s:capabilities>" % (self.prefix, self.nl, self.prefix,
                                         self.nl, self.prefix), qemu=True))
        # As libvirt writes it: declared when (and only when) used.
        self.declared = (any(p.qemu for p in self.pieces) and
                         self.chance(0.7))

    def chance(self, p):
        return self.rng.random() < p

    def metadata(self):
        """<metadata> holding our line and a record where they are not
        entries: CDATA, and a block that is not top-level."""
        nl, q = self.nl, self.prefix
        cdata = "<![CDATA[%s    %s%s    %s%s]]>" % (nl, OUR_LINE, nl,
                                                  OUR_RECORD, nl)
        nested = ("<%s:commandline xmlns:%s='%s'>%s%s</%s:commandline>"
                  % (q, q, QEMU_NS, env_tag(q, "LD_PRELOAD", LIBRARY),
                     env_tag(q, RECORD, "LD_PRELOAD=" + LIBRARY), q))
        return ("<metadata>%s<app:info xmlns:app='http://example.org/app'>%s"
                "</app:info>%s<more:x xmlns:more='http://example.org/more'>"
                "%s</more:x>%s</metadata>" % (nl, cdata, nl, nested, nl))

    def block_items(self):
        """What the user's own block holds: arguments, variables, and
        (but for libvirt, which keeps neither) comments, CDATA and other
        elements."""
        q, items = self.prefix, []
        for _ in range(self.rng.randint(1, 4)):
            kind = self.rng.choice(["arg", "env", "env"] + (
                [] if self.libvirt else ["comment", "other", "cdata", "odd"]))
            items.append({
                "arg": "<%s:arg value='-no-user-config'/>" % q,
                "env": env_tag(q, self.rng.choice(["TZ", "MALLOC_ARENA_MAX"]),
                               "x&'y"),
                "odd": "<%s:env  name=\"G_DEBUG\"   value = \"a'b\" />" % q,
                "comment": "<!-- %s -->" % OUR_LINE,
                "other": "<%s:other  a = \"b\" />" % q,
                "cdata": "<![CDATA[%s]]>" % OUR_LINE}[kind])
        return items

    # ---- the text ----------------------------------------------------------

    def own_ns(self):
        """What binds the prefix on a qemu: element of <domain>'s."""
        return "" if self.declared else " xmlns:%s='%s'" % (self.prefix,
                                                             QEMU_NS)

    def root_tag(self, entries):
        tag = "<domain type='qemu'"
        if not self.libvirt:
            tag += " xmlns:o=\"http://example.org/o\""
        if self.declared:
            tag += " xmlns:%s='%s'" % (self.prefix, QEMU_NS)
        tag += self.tag_end
        if entries and not self.declared and not self.user_block:
            tag = tag[:-1] + " xmlns:qemu='%s'>" % QEMU_NS
        return tag

    def render(self, entries=None):
        """The text; with ENTRIES, what enable makes of it."""
        out = [self.root_tag(entries), self.nl]
        placed = not entries
        for p in self.pieces:
            out.append(self.indent)
            if p.block is not None:
                self.block(out, p, entries)
                placed = True
                continue
            if p.qemu and not placed:
                self.new_block(out, entries, "")
                placed = True
            text = p.text % self.own_ns() if p.qemu else p.text
            out.append(text + self.nl)
        if not placed:
            self.new_block(out, entries, "  ")
        out.append("</domain>" + self.nl)
        return "".join(out)

    def block(self, out, p, entries):
        q = self.prefix
        out.append("<%s:commandline%s>%s" % (q, self.own_ns(), self.nl))
        out += [self.indent * 2 + item + self.nl for item in p.block]
        out.append(self.indent)
        if entries:
            tags = [env_tag(q, n, v) for n, v in entries]
            put_before_next(out, tags, "".join(tags), "  ")
        out.append("</%s:commandline>%s" % (q, self.nl))

    def new_block(self, out, entries, deeper):
        q = self.prefix if self.declared else "qemu"
        tags = [env_tag(q, n, v) for n, v in entries]
        start, end = "<%s:commandline>" % q, "</%s:commandline>" % q
        put_before_next(out, [start] + ["  " + t for t in tags] + [end],
                        start + "".join(tags) + end, deeper)


def put_before_next(out, lines, inline, deeper):
    """Put LINES before what comes next in OUT, as lines of their own at
    the start of its line when only blanks come before it there
    (indented as it is and DEEPER), else INLINE right before it."""
    text = "".join(out)
    head = text[text.rfind("\n") + 1:]
    if head.strip(" \t"):
        out.append(inline)
    else:
        out[:] = [text[:len(text) - len(head)],
                  "".join(head + deeper + line + "\n" for line in lines),
                  head]


def case(seed, libvirt=False):
    """(Definition, the entries enable sets) for SEED."""
    rng = random.Random(seed)
    d = Definition(rng, libvirt)
    chosen = sorted(rng.sample(SETTINGS, rng.randint(0, len(SETTINGS))))
    return d, [("LD_PRELOAD", LIBRARY)] + chosen


def user_edits(rng, entries):
    """(entries as a user changed them after enable, what disable must
    leave of them, how many it must warn about): LD_PRELOAD with
    jemalloc before or after the library, a setting changed, one
    deleted."""
    changed, kept, warned = [], [], 0
    for name, value in entries:
        what = rng.choice(["same", "same", "changed", "deleted"])
        if name == "LD_PRELOAD" and what == "changed":
            sep = rng.choice([":", " ", ": ", "::"])
            if rng.random() < 0.5:
                changed.append((name, JEMALLOC + sep + value))
            else:
                changed.append((name, value + sep + JEMALLOC))
            kept.append((name, JEMALLOC))
        elif what == "changed":
            changed.append((name, value + "0"))
            kept.append((name, value + "0"))
            warned += 1
        elif what == "same":
            changed.append((name, value))
    return changed, kept, warned


def older_form(rng, entries):
    """(the entries that a sockboost before the record wrote for
    ENTRIES, with one of the user's own after them; what disable must
    leave of them; whether they are that older form still): its
    LD_PRELOAD at times no longer exactly the library's path, and then
    nothing is to be taken."""
    own = [("SOCKBOOST_LIBRARY", "/opt/sb/libsockboost.so")] \
        if rng.random() < 0.3 else []
    if rng.random() < 0.25:
        preload = rng.choice([JEMALLOC + ":" + LIBRARY, LIBRARY + " ",
                              "libsockboost.so", LIBRARY + ".1",
                              "/usr/lib/libsockboost.so.d/x.so"])
        written = [("LD_PRELOAD", preload)] + entries[1:] + own
        return written, written, False
    return entries + own, own, True


def main(argv):
    if len(argv) != 4 or argv[0] != "--libvirt":
        print("usage: domaingen.py --libvirt SEED COUNT DIR", file=sys.stderr)
        return 2
    seed, count, out = int(argv[1]), int(argv[2]), argv[3]
    for i in range(count):
        text = case(seed + i, libvirt=True)[0].render()
        name = text.split("<name>")[1].split("</name>")[0]
        with open("%s/%s.xml" % (out, name), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
