#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost status, run as root, runs a process's program (for its
# version) only when root owns it and every directory above it, none of
# them writable by others, and it is the very file its name gives on
# this host.  A program any user built and named qemu-nbd
# (tests/progs/version-marker) would leave a mark if it ran: it leaves
# none.  A program not run gets its version from the package database
# when it is the file its package installed, else none.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  [ "$(id -u)" -eq 0 ] || sb_skip "needs root, to run status as root on another user's process"
  requires setpriv jq
  MARKER=$SB_BUILD/tests/progs/version-marker
}

# Set DIR to a new directory under /tmp that belongs to OWNER, with
# MODE, holding the marker program as qemu-nbd (root's).
program_dir () {
  DIR=$(mktemp -d /tmp/sb-status-program.XXXXXX)
  cleanup_push "rm -rf '$DIR'"
  cp "$MARKER" "$DIR/qemu-nbd"
  chmod "$2" "$DIR"
  chown "$1:" "$DIR"
}

# Start COMMAND... in the background; set PID once it runs PROGRAM.
start_program () {
  local program=$1
  shift
  "$@" 3>&- &
  PID=$!
  kill_at_teardown "$PID"
  wait_for_exe "$PID" "$program" || fail "$program did not start"
}

# The version status --json gives of PID's program: "VERSION|SOURCE".
status_version () {
  "$SOCKBOOST" status --json "$PID" |
    jq -r '"\(.program.version)|\(.program.version_source)"'
}

refute_marks () {
  local mark
  for mark in "$@"/ran-as-*; do
    [ ! -e "$mark" ] || fail "the program was run: $mark"
  done
}

@test "a user's own program named qemu-nbd: not run, its version unknown" {
  program_dir nobody 0755
  chown nobody: "$DIR/qemu-nbd"
  start_program "$DIR/qemu-nbd" setpriv --reuid=65534 --regid=65534 --clear-groups "$DIR/qemu-nbd" 60
  run "$SOCKBOOST" status "$PID"
  assert_success
  assert_line "  qemu-nbd (version unknown): what the library changes for it"
  assert_line "    unix: unknown: its version is unknown"
  run status_version
  assert_output "null|not run: $DIR belongs to uid 65534; no package installed that file"
  refute_marks "$DIR"
}

@test "root's program in root's directories is run, as the control" {
  program_dir root 0755
  start_program "$DIR/qemu-nbd" "$DIR/qemu-nbd" 60
  run status_version
  assert_output "7.2.0|printed by the program"
  [ -e "$DIR/ran-as-0" ] || fail "no mark: the marker program is broken"
}

@test "root's program in a directory others may write: not run, unless sticky" {
  program_dir root 0777
  start_program "$DIR/qemu-nbd" "$DIR/qemu-nbd" 60
  run status_version
  assert_output "null|not run: $DIR may be written by others; no package installed that file"
  refute_marks "$DIR"
  # In a sticky directory (as /tmp is) nobody may replace root's file.
  chmod 1777 "$DIR"
  run status_version
  assert_output "7.2.0|printed by the program"
}

@test "a name that is another file here (another mount namespace): not run" {
  requires unshare
  local other
  program_dir root 0755
  other=$DIR/other
  mkdir "$other"
  cp "$MARKER" "$other/qemu-nbd"
  # The process runs other/qemu-nbd under the name DIR/qemu-nbd.
  start_program "$DIR/qemu-nbd" unshare -m sh -c \
    'mount --bind "$1/other/qemu-nbd" "$1/qemu-nbd" && exec "$1/qemu-nbd" 60' _ "$DIR"
  run status_version
  assert_output "null|not run: $DIR/qemu-nbd on this host is not the file the process runs; no package installed that file"
  refute_marks "$DIR"
  refute_marks "$other"
}

# Start qemu-nbd on a unix socket in a mount namespace where
# /usr/bin/qemu-nbd is the file FILE.
start_qemu_nbd_as () {
  truncate -s 1M "$BATS_TEST_TMPDIR/disk.img"
  start_program /usr/bin/qemu-nbd unshare -m sh -c \
    'mount --bind "$1" /usr/bin/qemu-nbd && exec /usr/bin/qemu-nbd -k "$2" -f raw "$3"' \
    _ "$1" "$BATS_TEST_TMPDIR/nbd.sock" "$BATS_TEST_TMPDIR/disk.img"
}

@test "the packaged qemu-nbd under another file: the package's version, not run" {
  requires unshare qemu-nbd dpkg-query
  [ "$(command -v qemu-nbd)" = /usr/bin/qemu-nbd ] &&
    dpkg-query -S /usr/bin/qemu-nbd >/dev/null 2>&1 ||
    sb_skip "qemu-nbd is not Debian's /usr/bin/qemu-nbd"
  local package version
  package=$(dpkg-query -S /usr/bin/qemu-nbd | cut -d: -f1)
  version=$(dpkg-query -W -f '${Version}' "$package")
  # Byte for byte the packaged file, but another file: a container's.
  cp /usr/bin/qemu-nbd "$BATS_TEST_TMPDIR/qemu-nbd"
  start_qemu_nbd_as "$BATS_TEST_TMPDIR/qemu-nbd"
  run status_version
  assert_output "$(sed -E 's/^([0-9]+:)?([0-9]+(\.[0-9]+)+).*/\2/' <<<"$version")|from package $package $version (not run: /usr/bin/qemu-nbd on this host is not the file the process runs)"
  stop_process "$PID"
  # One byte more: no longer the packaged file.
  printf x >>"$BATS_TEST_TMPDIR/qemu-nbd"
  start_qemu_nbd_as "$BATS_TEST_TMPDIR/qemu-nbd"
  run status_version
  assert_output "null|not run: /usr/bin/qemu-nbd on this host is not the file the process runs; no package installed that file"
}
