# SPDX-License-Identifier: MIT
"""Rounds in turns, their medians, and what they allow one to conclude.

The one place for it: sockboost bench's tables, its summary, the demo
and the unix ceiling doctor reports all measure modes in turns (A B A B
...) so that a change in the machine's load hits every mode alike, and
judge them on medians and on rounds side by side.
"""

import collections
import statistics

# Fewer rounds than this cannot tell a difference from noise.
MIN_ROUNDS = 3


def take_turns(modes, rounds, measure, each_round=None):
    """Call MEASURE(mode, round) for every mode in turn, ROUNDS times
    (rounds count from 1); return {mode: [one figure per round]}.
    EACH_ROUND(round, figures), if given, is called after each round with
    {mode: that round's figure}."""
    figures = {mode: [] for mode in modes}
    for n in range(1, rounds + 1):
        this = {}
        for mode in modes:
            this[mode] = measure(mode, n)
            figures[mode].append(this[mode])
        if each_round:
            each_round(n, this)
    return figures


def median(values):
    return statistics.median(values)


def spread(values):
    """(median, lowest, highest) of VALUES."""
    return median(values), min(values), max(values)


def speedup(value, base, higher_is_better):
    """How many times better VALUE is than BASE (above 1: better), or
    None when either is zero."""
    if not value or not base:
        return None
    return value / base if higher_is_better else base / value


def paired_speedups(values, bases, higher_is_better):
    """The speed-up of each round over the same round of BASES."""
    pairs = [speedup(v, b, higher_is_better) for v, b in zip(values, bases)]
    return [p for p in pairs if p is not None]


# TEXT in words; WON: the rounds VALUES won; CLEAR: whether TEXT says
# faster or slower in every round, of enough rounds.
Verdict = collections.namedtuple("Verdict", "text won clear")


def verdict(values, bases, higher_is_better):
    """What the rounds of VALUES, each taken beside the same round of
    BASES, allow one to conclude about VALUES: only a difference that
    holds in every round counts.  Returns a Verdict."""
    pairs = list(zip(values, bases))
    won = sum(1 for v, b in pairs if (v > b if higher_is_better else v < b))
    lost = sum(1 for v, b in pairs if v != b) - won
    n = len(pairs)
    if n < MIN_ROUNDS:
        return Verdict("too few rounds to judge (%d; %d or more tell a "
                       "difference from noise)" % (n, MIN_ROUNDS), won, False)
    if won == n:
        return Verdict("faster in every round", won, True)
    if lost == n:
        return Verdict("slower in every round", won, True)
    return Verdict("no clear difference: faster in %d of %d rounds"
                   % (won, n), won, False)
