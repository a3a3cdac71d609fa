# SPDX-License-Identifier: MIT
"""Text for a terminal and for JSON, from names that may hold any byte.

Names (socket paths, process names) are str decoded from UTF-8 with
surrogateescape, so that every byte survives; each output form is made
from those bytes here."""

import textwrap


def shown(name):
    """NAME on one line of printable ASCII: a backslash, tab, newline and
    carriage return escaped as in C, every other byte outside printable
    ASCII as \\xHH (Python's unicode_escape of the bytes read as
    Latin-1)."""
    raw = name.encode("utf-8", "surrogateescape")
    return raw.decode("latin-1").encode("unicode_escape").decode("ascii")


def printable(text):
    """TEXT with each character that is not printable (a control
    character, a byte that is not UTF-8) escaped as shown() escapes it:
    for a line that may hold values nobody escaped."""
    return "".join(c if c.isprintable() else shown(c) for c in text)


def for_json(name):
    """NAME as JSON can carry it: well-formed UTF-8 kept, any other byte
    as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def folded(label, text, width=78):
    """LABEL and TEXT, TEXT folded at blanks under itself."""
    return textwrap.fill(text, width=width, initial_indent=label,
                         subsequent_indent=" " * len(label),
                         break_on_hyphens=False)
