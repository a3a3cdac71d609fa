# SPDX-License-Identifier: MIT
"""Measuring side by side, for sockboost doctor, the demo and the
benchmark: modes in turns and what their rounds allow one to conclude
(rounds), running the measured programs and their servers (procs), and
this host's unix ceiling (ceiling)."""
