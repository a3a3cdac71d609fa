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

The text is parsed (expat) and edited at the byte offsets of the
elements found: what only looks like an entry (in a comment, a CDATA
section, <metadata>, a nested block) is never one.  Before either edit
is handed back, check_confined() compares the old and the new text
outside those two places, which must be equal."""

import dataclasses
import functools
import re
import urllib.parse
import xml.parsers.expat

from .command import Failure

QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"
# The entry that records what enable set: names and values, each value
# %-quoted, separated by blanks.  QEMU gets it too; the library ignores it.
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
    """An element of DATA: its expanded name and prefix, where its text
    is, its attributes (as parsed) and children."""

    def __init__(self, data, name, attrs, start):
        parts = name.split(" ")
        self.ns = parts[0] if len(parts) > 1 else None
        self.local = parts[1] if len(parts) > 1 else parts[0]
        self.prefix = parts[2].encode() if len(parts) > 2 else None
        self.data, self.attrs, self.start = data, attrs, start
        self.children, self.last = [], None

    def qemu(self, local):
        return self.ns == QEMU_NS and self.local == local

    @functools.cached_property
    def tag_end(self):
        """Just after its start tag."""
        return TAG_RE.match(self.data, self.start).end()

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
    used: set                  # <domain>'s prefixes that something uses

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

    def envs(self, block):
        """The <qemu:env> children of BLOCK, as (element, name, value)."""
        return [(e, e.attrs.get("name", ""), e.attrs.get("value", ""))
                for e in block.children if e.qemu("env")]

    def recorded(self):
        """The entries enable set, as its record says, or None."""
        block = self.block()
        for _, name, value in self.envs(block) if block else []:
            if name == RECORD:
                return recorded(value)
        return None


def line_start(data, at):
    return data.rfind(b"\n", 0, at) + 1


class Scanner:
    """One pass of expat over DATA: the elements that may be edited, and
    if USES, which of <domain>'s namespace prefixes something uses (a
    prefix declared again further in is that declaration's)."""

    def __init__(self, data, uses):
        self.data, self.stack, self.root, self.uses = data, [], None, uses
        self.root_prefixes, self.qemu_prefixes = set(), []
        self.rebound, self.used = {}, set()
        p = self.parser = xml.parsers.expat.ParserCreate("UTF-8", " ")
        p.namespace_prefixes = True
        p.StartElementHandler, p.EndElementHandler = self.start, self.end
        p.StartNamespaceDeclHandler = self.declare
        p.EndNamespaceDeclHandler = self.undeclare
        p.StartDoctypeDeclHandler = self.doctype

    def doctype(self, *args):
        raise Refused("has a DOCTYPE in its definition, which libvirt "
                      "never writes")

    def declare(self, prefix, uri):
        if prefix and not self.stack:
            self.root_prefixes.add(prefix.encode())
            if uri == QEMU_NS:
                self.qemu_prefixes.append(prefix.encode())
        elif prefix:
            self.rebound[prefix] = self.rebound.get(prefix, 0) + 1

    def undeclare(self, prefix):
        if prefix and self.stack:
            self.rebound[prefix] -= 1

    def start(self, name, attrs):
        if self.uses:
            self.note_uses((name, *attrs))
        # Only <domain>, its children and what is in its blocks are
        # ever edited.
        stack, e = self.stack, None
        if not stack:
            e = self.root = Element(self.data, name, attrs,
                                    self.parser.CurrentByteIndex)
        elif len(stack) == 1 or (len(stack) == 2 and stack[-1] and
                                 name.startswith(QEMU_NS) and
                                 stack[-1].qemu("commandline")):
            e = Element(self.data, name, attrs, self.parser.CurrentByteIndex)
            stack[-1].children.append(e)
        stack.append(e)

    def note_uses(self, qnames):
        for qname in qnames:
            if qname.count(" ") == 2:
                prefix = qname[qname.rindex(" ") + 1:]
                if not self.rebound.get(prefix):
                    self.used.add(prefix.encode())

    def end(self, name):
        e = self.stack.pop()
        if e:
            e.last = self.parser.CurrentByteIndex


def parse(data, uses=False):
    """The Document of DATA (bytes), with the prefixes of <domain> that
    are used when USES is true; Refused when it does not parse, or is
    not a domain's definition."""
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


def enabled(text):
    """The entries enable set in the definition TEXT, as it recorded
    them, or None when it has no record."""
    return parse(text.encode("utf-8", "surrogateescape")).recorded()


# ---- enable ----------------------------------------------------------------

def enable(text, entries):
    """TEXT with ENTRIES ([(name, value)]) and their record appended to
    its top-level <qemu:commandline>.  Refused when it has the record, or
    one of the variables, already."""
    data = text.encode("utf-8", "surrogateescape")
    doc = parse(data)
    block = doc.block()
    present = [name for _, name, _ in doc.envs(block)] if block else []
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
    if new.recorded() != list(entries):
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

def disable(text):
    """(TEXT without what enable set, [(name, value)] taken out,
    [warnings]).  NotEnabled when it has no record."""
    data = text.encode("utf-8", "surrogateescape")
    doc = parse(data)
    block = doc.block()
    envs = doc.envs(block) if block else []
    records = [e for e in envs if e[1] == RECORD]
    if not records:
        raise NotEnabled("is not enabled: its definition has no sockboost "
                         "<qemu:env> entries")
    if len(records) > 1:
        raise Refused("has %d %s entries" % (len(records), RECORD))
    entries = recorded(records[0][2])
    plan = Plan([e for e in envs if e is not records[0]])
    plan.gone.append(records[0][0])
    for name, value in entries:
        if name == "LD_PRELOAD":
            plan.take_library(value)
        else:
            plan.take(name, value)
    edits = plan.edits(block)
    new = parse(edited(data, edits), uses=plan.block_gone)
    unused = [new.declaration(p) for p in new.qemu_prefixes
              if plan.block_gone and p not in new.used]
    if unused:
        new = parse(edited(new.data, [(*u, b"") for u in unused]))
    check_confined(doc, new, [name for name, _ in entries] + [RECORD])
    if new.recorded() is not None:
        raise Refused("could not be edited as libvirt wrote it")
    return (new.data.decode("utf-8", "surrogateescape"), plan.taken,
            plan.warnings)


class Plan:
    """What disable takes out of ENVS, the other entries of the block."""

    def __init__(self, envs):
        self.envs, self.gone, self.values = envs, [], []
        self.taken, self.warnings, self.block_gone = [], [], False

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
        gone = [e for e, name, _ in doc.envs(block) if name in names]
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
