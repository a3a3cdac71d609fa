# SPDX-License-Identifier: MIT
"""The Python parts of the sockboost command (doctor, status) and what
they share with the benchmark: the sockets of a process as ss sees them
(sockets), the library's own decisions (decisions, from sb-config), and
what the library changes for each NBD program (programs)."""
