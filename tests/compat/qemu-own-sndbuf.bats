#!/usr/bin/env bats
# QEMU 10.1 and later set a 2 MiB send buffer on their NBD unix sockets
# themselves, right after accept and connect: after the library's hook
# has set its own.  Their call keeps its meaning: what a user gets on
# those versions is QEMU's 2 MiB (tb 4194304), with the library's default
# (also 2 MiB) as with --sndbuf 4M, whose 8 MiB QEMU then replaces.  Before
# 10.1 the library's buffer stays.  Seen from outside: ss -xmp gives both
# ends' tb while qemu-io holds its connection, and strace gives the order
# of the SO_SNDBUF calls on qemu-nbd's accepted socket and their values.

load ../helpers

setup () {
  requires qemu-nbd qemu-io strace ss
  read_versions
  SOCK=$BATS_TEST_TMPDIR/s.sock
  URI="nbd+unix:///?socket=$SOCK"
  head -c 8M /dev/urandom > "$BATS_TEST_TMPDIR/disk.img"
  # What the kernel grants a 2 MiB SO_SNDBUF request from QEMU itself.
  QEMU_OWN_TB=4194304
  [ "$(cat /proc/sys/net/core/wmem_max)" -ge 2097152 ] ||
    fail "wmem_max is below 2 MiB: QEMU's own request would be clipped"
}

# Serve the disk with qemu-nbd under `sockboost run ARGS...` and strace
# (SO_SNDBUF calls and accept4, into qemu-nbd.trace), and hold a qemu-io
# connection to it under the same ARGS.  Sets SERVER and QEMU_IO_PID.
serve_and_hold () {
  local d=$BATS_TEST_TMPDIR
  # fd 3 is bats' own: neither program may hold it.
  # Not -f: qemu-nbd accepts and sets its options in its main thread,
  # and one traced thread means no interleaved, split lines.
  strace -o "$d/qemu-nbd.trace" -e trace=accept4,accept,setsockopt \
    "$SOCKBOOST" run "$@" -v --log-file "$d/qemu-nbd.log" -- \
    qemu-nbd -r -t -f raw -k "$SOCK" --pid-file "$d/qemu-nbd.pid" \
    "$d/disk.img" 3>&- &
  kill_at_teardown $!
  wait_for_file "$d/qemu-nbd.pid"
  SERVER=$(cat "$d/qemu-nbd.pid")
  kill_at_teardown "$SERVER"
  wait_for_socket "$SOCK"
  start_qemu_io "$URI" "$d/qemu-io.out" "$SOCKBOOST" run "$@" -v \
    --log-file "$d/qemu-io.log" --
}

# The SO_SNDBUF values qemu-nbd asked for on the socket it accepted, in
# order (the library's call first, then QEMU's own if any).
sndbuf_calls_on_accepted () {
  awk '
    /accept4?\(/ && / = [0-9]+$/ { fd = $NF }
    fd != "" && index($0, "setsockopt(" fd ", SOL_SOCKET, SO_SNDBUF, [") {
      v = $0; sub(/.*SO_SNDBUF, \[/, "", v); sub(/\].*/, "", v)
      calls = calls (calls == "" ? "" : " ") v }
    END { print calls }' \
    "$BATS_TEST_TMPDIR/qemu-nbd.trace"
}

# Both ends show tb WANT (qemu-io's one socket, qemu-nbd's accepted one).
assert_both_tb () {
  wait_for_unix_tb "$QEMU_IO_PID" "$1"
  wait_for_unix_tb "$SERVER" "$1"
  run unix_tbs_of_pid "$QEMU_IO_PID"
  assert_output "$1"
}

@test "default setting: tb 4194304 on both ends, QEMU 10.1+ setting its own 2 MiB after the library" {
  serve_and_hold
  assert_both_tb "$BOOSTED_TB"
  # The library did tune both ends, as its log says.
  grep -qE "unix accept sndbuf $DEFAULT_TB -> $BOOSTED_TB$" "$BATS_TEST_TMPDIR/qemu-nbd.log"
  grep -qE "unix connect sndbuf $DEFAULT_TB -> $BOOSTED_TB$" "$BATS_TEST_TMPDIR/qemu-io.log"
  stop_qemu_io
  run sndbuf_calls_on_accepted
  echo "QEMU $QEMU_VERSION: qemu-nbd's SO_SNDBUF calls: $output" >&3
  if qemu_at_least 10.1; then
    assert_output "2097152 2097152"
  else
    assert_output "2097152"
  fi
}

@test "--sndbuf 4M: QEMU 10.1+ replaces the library's 8 MiB with its 2 MiB; older QEMU keeps it" {
  local want=8388608
  qemu_at_least 10.1 && want=$QEMU_OWN_TB
  serve_and_hold --sndbuf 4M
  # QEMU's own later call, passed through unchanged, decides ...
  assert_both_tb "$want"
  # ... after the library set 4 MiB (granted as 8 MiB) on both ends.
  grep -qE "unix accept sndbuf $DEFAULT_TB -> 8388608$" "$BATS_TEST_TMPDIR/qemu-nbd.log"
  grep -qE "unix connect sndbuf $DEFAULT_TB -> 8388608$" "$BATS_TEST_TMPDIR/qemu-io.log"
  stop_qemu_io
  run sndbuf_calls_on_accepted
  echo "QEMU $QEMU_VERSION: qemu-nbd's SO_SNDBUF calls: $output; tb $want" >&3
  if qemu_at_least 10.1; then
    assert_output "4194304 2097152"
    grep -qE 'SO_SNDBUF, \[2097152\], [0-9]+\) = 0$' "$BATS_TEST_TMPDIR/qemu-nbd.trace"
  else
    assert_output "4194304"
  fi
}
