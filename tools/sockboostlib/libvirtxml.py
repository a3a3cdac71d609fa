# SPDX-License-Identifier: MIT
"""The <qemu:env> entries that 'sockboost libvirt' puts into a domain's
definition and takes out again, edited in the text that libvirt wrote,
so that nothing else in it changes.

Two places are edited, and nothing else: the top-level
<qemu:commandline> block (a child of <domain>), and the declaration of
QEMU's namespace on <domain>.  enable appends its entries to that block
(made where libvirt puts it when there is none, the declaration with
it), and one more entry, RECORD, which says what it set.  disable takes
out what the record names, as it was set, and the record: a variable
changed since is left, with a warning, and from LD_PRELOAD only the
library's path goes (split at ':' and blanks, as the loader splits it),
the rest stays.  The block goes when nothing else is left in it, the
declaration when nothing else uses it.

A sockboost before the record wrote its entries alone: disable knows
that older form by an LD_PRELOAD naming exactly one libsockboost.so by
its absolute path, and takes out that entry and those of the variables
the library reads (asked of sb-config by the caller), nothing else.

The text is parsed (expat) and edited at the byte offsets of the
elements found: what only looks like an entry (in a comment, a CDATA
section, <metadata>, a nested block) is never one.  Before either edit
is handed back, check_confined() compares the old and the new text
outside those two places, which must be equal."""

import dataclasses
import re
import urllib.parse
import xml.parsers.expat

from .command import Failure

QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"
# The entry that records what enable set: names and values, each value
# %-quoted, separated by blanks.  QEMU gets it too, and the library
# ignores it (tests/preload-ignores-libvirt-record.bats).  It stays in
# our block rather than in a <metadata> element of our own, which QEMU
# would not see: that would be a second place to edit, written back by
# libxml2 rather than by libvirt's formatter, and libvirt keeps an
# emptied <metadata/>, which disable could not tell from one that
# enable made, to give the text back byte for byte.
RECORD = "SOCKBOOST_LIBVIRT_ENABLED"
OURS_RE = re.compile(r"LD_PRELOAD|SOCKBOOST_[A-Z0-9_]+")
# LD_PRELOAD's separators, as ld.so reads them.
PRELOAD_SPLIT_RE = re.compile(r"([: \t]+)")
# A start tag, quoted values holding any '>'; a name; an attribute.
TAG_RE = re.compile(rb"""<[^'">]*(?:(?:'[^']*'|"[^"]*")[^'">]*)*>""")
QNAME_RE = re.compile(rb"[^\s/>]+")
ATTR_RE = re.compile(rb"""([^\s=/>]+)\s*=\s*('[^']*'|"[^"]*")""")
BLANKS = b" \t"


class Refused(Failure):
    """An edit that is not made, and why (said of the domain: "DOMAIN
    sets LD_PRELOAD...")."""


class NotEnabled(Refused):
    """A definition without the record of an enable."""


class Element:
    """An element of DATA at DEPTH (<domain> 0): its expanded name and
    prefix, where its text is, its attributes (as parsed) and the
    children that the Scanner keeps."""

    __slots__ = ("ns", "local", "prefix", "data", "start", "attrs", "depth",
                 "children", "last", "tag_end")

    def __init__(self, data, name, attrs, start, depth):
        """ATTRS: names and values in turn (expat's ordered_attributes)."""
        parts = name.split(" ")
        self.ns = parts[0] if len(parts) > 1 else None
        self.local = parts[1] if len(parts) > 1 else parts[0]
        self.prefix = parts[2].encode() if len(parts) > 2 else None
        self.data, self.start = data, start
        self.attrs = dict(zip(attrs[::2], attrs[1::2]))
        self.depth, self.children, self.last = depth, [], None
        # Just after its start tag.
        self.tag_end = TAG_RE.match(data, start).end()

    def qemu(self, local):
        return self.ns == QEMU_NS and self.local == local

    @property
    def close(self):
        """Where its end tag starts; None for an empty-element tag."""
        end = self.tag_end
        return None if self.data[end - 2:end] == b"/>" else self.last

    @property
    def end(self):
        """Just after the element."""
        close = self.close
        return self.tag_end if close is None else \
            self.data.index(b">", close) + 1

    def extent(self):
        """(start, end) of its text, with its lines when it stands on
        lines of its own (only blanks before it, a newline after it)."""
        data, end = self.data, self.end
        start = line_start(data, self.start)
        if not data[start:self.start].strip(BLANKS) and \
                data[end:end + 1] == b"\n":
            return start, end + 1
        return self.start, end

    def attribute(self, qname):
        """The Attribute QNAME of its start tag, as written."""
        tag = self.data[self.start:self.tag_end]
        for m in ATTR_RE.finditer(tag, QNAME_RE.match(tag, 1).end()):
            if m.group(1) == qname:
                return Attribute(self.start + m.start(1),
                                 self.start + m.start(2) + 1,
                                 self.start + m.end(2) - 1,
                                 self.start + m.end(2))
        return None


@dataclasses.dataclass
class Attribute:
    start: int                 # offsets of its name,
    value: int                 # of its value's text (inside the quotes),
    value_end: int             # just after that text,
    end: int                   # just after its closing quote


@dataclasses.dataclass
class Document:
    data: bytes
    root: Element
    qemu_prefixes: list        # those <domain> binds to QEMU's namespace
    used: set                  # <domain>'s prefixes used outside the
                               # top-level block (parse's USES)

    def declaration(self, prefix):
        """(start, end) of <domain>'s declaration of PREFIX, with the
        blank before it."""
        a = self.root.attribute(b"xmlns:" + prefix)
        start = a.start - 1 if self.data[a.start - 1:a.start].isspace() \
            else a.start
        return start, a.end

    def block(self):
        """The top-level <qemu:commandline>, or None."""
        found = [c for c in self.root.children if c.qemu("commandline")]
        if len(found) > 1:
            raise Refused("has %d top-level <qemu:commandline> blocks in "
                          "its definition" % len(found))
        return found[0] if found else None

    def envs(self):
        """The <qemu:env> children of the top-level block, as (element,
        name, value); none without a block."""
        block = self.block()
        return [(e, e.attrs.get("name", ""), e.attrs.get("value", ""))
                for e in block.children if e.qemu("env")] if block else []

    def records(self):
        """The RECORD entries among envs()."""
        return [e for e in self.envs() if e[1] == RECORD]

    def enabled(self, variables):
        """What enable set, as an Enabled, or None.  VARIABLES: the names
        the library reads, which the older form may hold."""
        envs = self.envs()
        records = [e for e in envs if e[1] == RECORD]
        if len(records) > 1:
            raise Refused("has %d %s entries" % (len(records), RECORD))
        if records:
            return Enabled(recorded(records[0][2]), records[0][0], [])
        older = [e for e in envs if is_older_entry(e[1], e[2], variables)]
        if not any(name == "LD_PRELOAD" for _, name, _ in older):
            return None
        return Enabled([(name, value) for _, name, value in older], None,
                       [e for e, _, _ in older])


@dataclasses.dataclass
class Enabled:
    entries: list              # (name, value) that enable set
    record: Element            # its RECORD entry; None: the older form
    older: list                # the older form: its entries' elements


def is_older_entry(name, value, variables):
    """Whether the entry NAME=VALUE is one that sockboost wrote before
    it kept a record: LD_PRELOAD naming exactly one libsockboost.so by
    its absolute path, or a variable the library reads (VARIABLES)."""
    if name == "LD_PRELOAD":
        return (value.startswith("/") and value.endswith("/libsockboost.so")
                and not PRELOAD_SPLIT_RE.search(value))
    return name in variables


def line_start(data, at):
    return data.rfind(b"\n", 0, at) + 1


class Scanner:
    """One pass of expat over DATA: the elements that may be edited, and
    if USES, which of <domain>'s namespace prefixes something outside
    the top-level block uses (a prefix declared again further in is that
    declaration's): what is left of them when the block goes.

    The handlers run for every element: they do as little as they can
    for those never edited (a depth counted, one string compared)."""

    def __init__(self, data, uses):
        self.data, self.depth, self.open, self.uses = data, 0, [], uses
        self.root = None
        self.root_prefixes, self.qemu_prefixes = set(), []
        self.rebound, self.used = {}, set()
        p = self.parser = xml.parsers.expat.ParserCreate("UTF-8", " ")
        p.namespace_prefixes = p.ordered_attributes = True
        p.StartElementHandler, p.EndElementHandler = self.start, self.end
        p.StartNamespaceDeclHandler = self.declare
        p.EndNamespaceDeclHandler = self.undeclare
        p.StartDoctypeDeclHandler = self.doctype

    def doctype(self, *args):
        raise Refused("has a DOCTYPE in its definition, which libvirt "
                      "never writes")

    def declare(self, prefix, uri):
        if prefix and not self.depth:
            self.root_prefixes.add(prefix.encode())
            if uri == QEMU_NS:
                self.qemu_prefixes.append(prefix.encode())
        elif prefix:
            self.rebound[prefix] = self.rebound.get(prefix, 0) + 1

    def undeclare(self, prefix):
        if prefix and self.depth:
            self.rebound[prefix] -= 1

    def start(self, name, attrs):
        depth = self.depth
        self.depth = depth + 1
        # Only <domain>, its children of QEMU's namespace and what is in
        # its blocks are ever edited.
        if depth == 0:
            self.root = self.element(name, attrs, 0)
        elif depth <= 2 and name.startswith(QEMU_NS):
            parent = self.open[-1]      # <domain>, or one of QEMU's
            if parent.depth == depth - 1 and (
                    depth == 1 or parent.local == "commandline"):
                parent.children.append(self.element(name, attrs, depth))
        if self.uses and not (len(self.open) > 1 and
                              self.open[1].qemu("commandline")):
            self.note_uses(name, attrs)

    def element(self, name, attrs, depth):
        e = Element(self.data, name, attrs, self.parser.CurrentByteIndex,
                    depth)
        self.open.append(e)
        return e

    def note_uses(self, name, attrs):
        """Only prefixes of QEMU's namespace are asked about."""
        for qname in (name, *attrs[::2]):
            if qname.startswith(QEMU_NS) and qname.count(" ") == 2:
                prefix = qname[qname.rindex(" ") + 1:]
                if not self.rebound.get(prefix):
                    self.used.add(prefix.encode())

    def end(self, name):
        self.depth -= 1
        if self.open[-1].depth == self.depth:
            self.open.pop().last = self.parser.CurrentByteIndex


def parse(data, uses=False):
    """The Document of DATA (bytes), with the prefixes of <domain> that
    are used outside the top-level block when USES is true; Refused when
    it does not parse, or is not a domain's definition."""
    s = Scanner(data, uses)
    try:
        s.parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as e:
        raise Refused("has a definition that does not parse: %s" % e) \
            from None
    if s.root.ns or s.root.local != "domain" or s.root.close is None:
        raise Refused("has a definition that is not a <domain> with "
                      "elements in it")
    return Document(data, s.root, s.qemu_prefixes,
                    s.used & s.root_prefixes)


def edited(data, edits):
    """DATA with each (start, end, text) of EDITS replacing its span."""
    for start, end, text in sorted(edits, reverse=True):
        data = data[:start] + text + data[end:]
    return data


def escaped(value, quote="'"):
    """VALUE for an attribute in QUOTE: parsed back, it is VALUE again
    (blanks other than the space kept as references)."""
    for ch, ref in (("&", "&amp;"), ("<", "&lt;"), ("'", "&apos;"),
                    ('"', "&quot;"), ("\t", "&#9;"), ("\n", "&#10;"),
                    ("\r", "&#13;")):
        if ch not in "'\"" or ch == quote:
            value = value.replace(ch, ref)
    return value.encode("utf-8", "surrogateescape")


# ---- the record ------------------------------------------------------------

def record_value(entries):
    return " ".join("%s=%s" % (name, urllib.parse.quote(value, safe="/:,+@"))
                    for name, value in entries)


def recorded(value):
    """The (name, value) entries a RECORD value names; Refused when it is
    not one that enable wrote."""
    entries = []
    for item in value.split():
        name, equals, quoted = item.partition("=")
        if (not equals or not OURS_RE.fullmatch(name) or name == RECORD
                or name in dict(entries)):
            raise Refused("has a %s entry that enable did not write: "
                          "'%s'" % (RECORD, value))
        entries.append((name, urllib.parse.unquote(quoted)))
    if not entries:
        raise Refused("has an empty %s entry" % RECORD)
    return entries


def enabled(text, variables):
    """What enable set in the definition TEXT (an Enabled), or None.
    VARIABLES: the names the library reads (sb-config --variables)."""
    return parse(text.encode("utf-8", "surrogateescape")).enabled(variables)


# ---- enable ----------------------------------------------------------------

def enable(text, entries):
    """TEXT with ENTRIES ([(name, value)]) and their record appended to
    its top-level <qemu:commandline>.  Refused when it has the record, or
    one of the variables, already."""
    data = text.encode("utf-8", "surrogateescape")
    doc = parse(data)
    block = doc.block()
    present = [name for _, name, _ in doc.envs()]
    if RECORD in present:
        raise Refused("is enabled already")
    for name, _ in entries:
        if name in present:
            raise Refused("sets %s in its <qemu:env> already: %s" % (
                name, "add the library there by hand (virsh edit)"
                if name == "LD_PRELOAD" else "take it out first (virsh "
                "edit), or leave out the option that sets it"))
    full = list(entries) + [(RECORD, record_value(entries))]
    new = parse(edited(data, [into_block(block, full)] if block
                       else new_block(doc, full)))
    check_confined(doc, new, [name for name, _ in full])
    found = new.enabled(())
    if not found or found.record is None or found.entries != list(entries):
        raise Refused("could not be edited as libvirt wrote it")
    return new.data.decode("utf-8", "surrogateescape")


def env_tags(prefix, entries):
    qname = prefix + b":env" if prefix else b"env"
    return [b"<%s name='%s' value='%s'/>" % (qname, escaped(name),
                                             escaped(value))
            for name, value in entries]


def insertion(data, at, lines, inline, deeper):
    """An edit putting LINES before offset AT as lines of their own, at
    the start of its line and indented as it is and DEEPER, when only
    blanks come before it there; else INLINE right before it."""
    start = line_start(data, at)
    if data[start:at].strip(BLANKS):
        return at, at, inline
    indent = data[start:at] + deeper
    return start, start, b"".join(indent + line + b"\n" for line in lines)


def into_block(block, entries):
    """The edit appending ENTRIES to BLOCK, in the block's own prefix."""
    close = block.close
    if close is None or not block.data[block.tag_end:close].strip():
        raise Refused("has an empty <qemu:commandline> in its definition, "
                      "which libvirt never writes")
    tags = env_tags(block.prefix, entries)
    return insertion(block.data, close, tags, b"".join(tags), b"  ")


def new_block(doc, entries):
    """The edits making a block of ENTRIES where libvirt writes it:
    before <domain>'s other elements of QEMU's namespace, or at its end;
    declaring the namespace when <domain> does not."""
    edits = []
    if doc.qemu_prefixes:
        prefix = doc.qemu_prefixes[0]
    elif doc.root.attribute(b"xmlns:qemu"):
        raise Refused("binds the prefix qemu to another namespace in its "
                      "definition")
    else:
        prefix, at = b"qemu", doc.root.tag_end - 1
        edits.append((at, at, b" xmlns:qemu='%s'" % QEMU_NS.encode()))
    tags = env_tags(prefix, entries)
    start, end = b"<%s:commandline>" % prefix, b"</%s:commandline>" % prefix
    after = [c for c in doc.root.children if c.ns == QEMU_NS]
    edits.append(insertion(
        doc.data, after[0].start if after else doc.root.close,
        [start] + [b"  " + t for t in tags] + [end],
        start + b"".join(tags) + end, b"" if after else b"  "))
    return edits


# ---- disable ---------------------------------------------------------------

def disable(text, variables):
    """(TEXT without what enable set, [(name, value)] taken out,
    [warnings]).  VARIABLES: the names the library reads, which the
    older form, without a record, may hold.  NotEnabled when it has
    neither form."""
    data = text.encode("utf-8", "surrogateescape")
    doc = parse(data, uses=True)
    found = doc.enabled(variables)
    if found is None:
        raise NotEnabled("is not enabled: its definition has no sockboost "
                         "<qemu:env> entries")
    plan = Plan.of(doc, found)
    edits = plan.edits(doc.block())
    if plan.block_gone:
        edits += [(*doc.declaration(p), b"") for p in doc.qemu_prefixes
                  if p not in doc.used]
    new = parse(edited(data, edits))
    names = [name for name, _ in found.entries]
    if found.record is None:
        check_confined(doc, new, names)
        left = new.enabled(variables)
    else:
        check_confined(doc, new, names + [RECORD])
        left = new.records()
    if left:
        raise Refused("could not be edited as libvirt wrote it")
    return (new.data.decode("utf-8", "surrogateescape"), plan.taken,
            plan.warnings)


class Plan:
    """What disable takes out of ENVS, the other entries of the block."""

    def __init__(self, envs):
        self.envs, self.gone, self.values = envs, [], []
        self.taken, self.warnings, self.block_gone = [], [], False

    @classmethod
    def of(cls, doc, found):
        """The Plan for what DOC says enable set (FOUND, an Enabled):
        the older form's entries, all as they are; else the record and
        what it names, as it was set."""
        if found.record is None:
            plan = cls([])
            plan.gone, plan.taken = list(found.older), list(found.entries)
            return plan
        plan = cls([e for e in doc.envs() if e[0] is not found.record])
        plan.gone.append(found.record)
        for name, value in found.entries:
            if name == "LD_PRELOAD":
                plan.take_library(value)
            else:
                plan.take(name, value)
        return plan

    def take(self, name, value):
        now = [(e, v) for e, n, v in self.envs if n == name]
        same = [e for e, v in now if v == value]
        if same:
            self.gone.append(same[0])
            self.taken.append((name, value))
        elif now:
            self.warnings.append("%s is '%s' now, not '%s' as enable set "
                                 "it: left as it is" % (name, now[0][1],
                                                        value))

    def take_library(self, library):
        preloads = [(e, v) for e, n, v in self.envs if n == "LD_PRELOAD"]
        for e, value in preloads:
            rest = without_item(value, library)
            if rest is None:
                continue
            if rest.strip(": \t"):
                self.values.append((e, rest))
            else:
                self.gone.append(e)
            self.taken.append(("LD_PRELOAD", library))
            return
        if preloads:
            self.warnings.append("LD_PRELOAD no longer holds %s: left as "
                                 "it is" % library)

    def edits(self, block):
        """The edits: the whole block when nothing else is left in it."""
        data = block.data
        inner = edited(data[:block.close],
                       [(e.start, e.end, b"") for e in self.gone])
        if not self.values and not inner[block.tag_end:].strip():
            self.block_gone = True
            return [(*block.extent(), b"")]
        return ([(*e.extent(), b"") for e in self.gone] +
                [value_edit(e, v) for e, v in self.values])


def without_item(value, item):
    """VALUE, a list as LD_PRELOAD's, with its last ITEM taken out with
    one separator next to it; None when it holds no ITEM."""
    parts = PRELOAD_SPLIT_RE.split(value)
    where = [i for i in range(0, len(parts), 2) if parts[i] == item]
    if not where:
        return None
    i = where[-1]
    del parts[max(i - 1, 0):i + 1 if i or len(parts) == 1 else i + 2]
    return "".join(parts)


def value_edit(e, value):
    """The edit giving element E's value attribute VALUE."""
    a = e.attribute(b"value")
    return a.value, a.value_end, escaped(value, chr(e.data[a.value - 1]))


# ---- the check before define ------------------------------------------------

def skeleton(doc, names):
    """DOC's text without the entries named NAMES in its top-level
    block, the block when nothing else is left in it, and <domain>'s
    declarations of QEMU's namespace."""
    block = doc.block()
    cuts = [doc.declaration(p) for p in doc.qemu_prefixes]
    if block:
        gone = [e for e, name, _ in doc.envs() if name in names]
        inner = edited(doc.data[:block.close or block.end],
                       [(e.start, e.end, b"") for e in gone])
        if gone and not inner[block.tag_end:].strip():
            cuts.append(block.extent())
        else:
            cuts += [e.extent() for e in gone]
    return edited(doc.data, [(start, end, b"") for start, end in cuts])


def check_confined(old, new, names):
    """Refused unless the Document NEW differs from OLD only in the
    entries named NAMES of the top-level block, that block, and the
    declaration of QEMU's namespace: what the edits may touch."""
    if skeleton(old, names) != skeleton(new, names):
        raise Refused("would change more of its definition than "
                      "sockboost's entries: not defined")
