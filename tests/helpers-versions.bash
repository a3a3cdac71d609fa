# SPDX-License-Identifier: MIT
# Versions of the real NBD programs, for tests whose expected result
# depends on them (sourced by helpers.bash).  A test asserts the
# behaviour of the version it finds, so the same file passes on Debian 12
# and in the make check-compat chroots:
#   if qemu_at_least 10.1; then ...QEMU's own 2 MiB...; else ...; fi
# read_versions sets QEMU_VERSION, NBDKIT_VERSION and LIBNBD_VERSION
# (empty for a program that is absent); the *_at_least functions call it.

# Print the first dotted version number on the first line of CMD's output.
first_version () {
  "$@" 2>/dev/null | head -n 1 | grep -oE '[0-9]+(\.[0-9]+)+' | head -n 1
}

# Read the versions once per test (in the caller's shell, not a subshell).
read_versions () {
  [ -z "${SB_VERSIONS_READ:-}" ] || return 0
  QEMU_VERSION=$(first_version qemu-img --version)
  NBDKIT_VERSION=$(first_version nbdkit --version)
  LIBNBD_VERSION=$(first_version sh -c 'nbdinfo --version | grep "^libnbd "')
  SB_VERSIONS_READ=1
}

# Is version HAVE at least WANT?  (Dotted numbers; an empty HAVE is not.)
version_at_least () {
  [ -n "$1" ] && [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

qemu_at_least () { read_versions; version_at_least "$QEMU_VERSION" "$1"; }
nbdkit_at_least () { read_versions; version_at_least "$NBDKIT_VERSION" "$1"; }
libnbd_at_least () { read_versions; version_at_least "$LIBNBD_VERSION" "$1"; }

# The send buffer (tb) QEMU's own NBD unix sockets have without the
# library: QEMU 10.1 and later ask for 2 MiB themselves (SO_SNDBUF, so
# clipped at wmem_max, then doubled); older ones keep wmem_default.
qemu_own_unix_tb () {
  local max
  if qemu_at_least 10.1; then
    max=$(cat /proc/sys/net/core/wmem_max)
    echo $((2 * (max < 2097152 ? max : 2097152)))
  else
    cat /proc/sys/net/core/wmem_default
  fi
}

# How older programs describe the same extents (the map tests compare
# maps across programs; the numbers must agree, the words may not):
#
# nbdinfo before libnbd 1.8.1 calls an extent without flags "allocated",
# later ones and sbnbd-client map "data" (libnbd commit 1d01d2a, "info:
# Avoid ambiguous 'allocated' terminology in --map").  Filter nbdinfo
# --map's output (text or --json) into the later word.
nbdinfo_map_words () {
  if libnbd_at_least 1.8.1; then
    cat
  else
    sed -e 's/  allocated$/  data/' -e 's/"description": "allocated"/"description": "data"/'
  fi
}

# qemu-nbd before 6.0 reports a raw file's holes as zeroes alone
# (NBD_STATE_ZERO, 2), 6.0 and later as holes that read as zeroes (3,
# QEMU's "nbd/server: Report holes for raw images"), as sbnbd-server
# does.  Filter a map of a raw file as sbnbd-server reports it (nbdinfo
# --map, text or --json; qemu-img map --output=json) into what this
# qemu-nbd reports of the same file.
as_qemu_nbd_reports () {
  if qemu_at_least 6.0; then
    cat
  else
    sed -e 's/    3  hole,zero$/    2  zero/' \
      -e 's/"type": 3, "description": "hole,zero"/"type": 2, "description": "zero"/' \
      -e 's/"zero": true, "data": false/"zero": true, "data": true/'
  fi
}
