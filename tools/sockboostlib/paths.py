# SPDX-License-Identifier: MIT
"""Where sockboost's files are, for every Python command and the
benchmark: the one answer on the Python side.

Installed, make install substitutes the directories below.  In the
build tree the sources are found from this file, and the built programs
in SB_BUILD (an out-of-tree build such as the tests' build-asan/) or
beside the sources.  The library is the one tools/sockboost chose and
passed in SOCKBOOST_LIBRARY (which a user may set too), else the
installed or built one: the same rule as the script's."""

import os

INSTALLED_PKGLIBDIR = "@PKGLIBDIR@"
INSTALLED_BINDIR = "@BINDIR@"
INSTALLED = not INSTALLED_PKGLIBDIR.startswith("@")
# tools/ in the build tree, PKGLIBDIR once installed.
TOOLS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SOURCE = os.path.dirname(TOOLS)


def built(subdir):
    """Where the build puts the programs of SUBDIR (tools, nbd, preload)."""
    return os.path.join(os.environ.get("SB_BUILD") or SOURCE, subdir)


def helper(name):
    """The path of helper program NAME (sb-config, sb-probe...)."""
    return os.path.join(TOOLS if INSTALLED else built("tools"), name)


def nbd_program(name):
    """The path of sbnbd-server or sbnbd-client."""
    return os.path.join(INSTALLED_BINDIR if INSTALLED else built("nbd"), name)


def library():
    """The libsockboost.so to preload."""
    return os.environ.get("SOCKBOOST_LIBRARY") or os.path.join(
        TOOLS if INSTALLED else built("preload"), "libsockboost.so")


def data(name):
    """The path of NAME, a file shipped with the tools (a plot script),
    relative to tools/."""
    return os.path.join(TOOLS, name)


def sockboost():
    """The sockboost command itself."""
    if INSTALLED:
        return os.path.join(INSTALLED_BINDIR, "sockboost")
    return os.path.join(TOOLS, "sockboost")


def missing(path):
    """Why PATH, a program of ours, is not there, in words."""
    if INSTALLED:
        return "%s is missing" % path
    if path.startswith(SOURCE + os.sep):
        path = os.path.relpath(path, SOURCE)
    return "%s is not built (run make)" % path
