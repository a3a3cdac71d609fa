# SPDX-License-Identifier: MIT
"""What the Python commands of sockboost (doctor, status, libvirt) and
the benchmark share: how a command fails and reads its command line
(command, options), where the files are (paths), the sockets of a
process as ss sees them (sockets), the library's own decisions
(decisions, from sb-config), and what the library changes for each NBD
program (programs)."""
