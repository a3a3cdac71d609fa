#!/usr/bin/env bats
# sockboost attach that changes nothing says in one line what it found,
# instead of printing nothing: an idle qemu-nbd's listening unix socket is
# left alone (its accepted sockets would not inherit a send buffer), and
# --watch is what tunes them.  A process with no socket at all is an
# error (exit 1), also beside one that has sockets.
# bats file_tags=sanitize
bats_require_minimum_version 1.5.0

load helpers

LISTENER_LINE="nothing to change: 1 listening unix socket left alone (accepted sockets do not inherit its send buffer: use --watch)"

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
}

# The send buffer (tb) of PID's listening unix socket, read with ss.
listener_tb () {
  ss -xlmpn | awk -v pid="pid=$1," 'index($0, pid) {
    match($0, /tb[0-9]+/); print substr($0, RSTART + 2, RLENGTH - 2) }'
}

@test "an idle qemu-nbd on a unix socket: the listener is left alone, and attach says so" {
  requires qemu-nbd ss
  local sock=$BATS_TEST_TMPDIR/nbd.sock img=$BATS_TEST_TMPDIR/disk.img
  truncate -s 1M "$img"
  start_bg "$BATS_TEST_TMPDIR/qemu-nbd.log" qemu-nbd -t -f raw -k "$sock" "$img"
  wait_for_socket "$sock"
  run --separate-stderr "$SOCKBOOST" attach "$BG_PID"
  assert_success
  assert_output "sockboost[qemu-nbd $BG_PID]: $LISTENER_LINE"
  assert_equal "$stderr" ""
  assert_equal "$(listener_tb "$BG_PID")" "$DEFAULT_TB"
}

@test "a process with no socket at all: an error, exit 1" {
  start_bg "$BATS_TEST_TMPDIR/sleep.log" sleep 60
  run --separate-stderr "$SOCKBOOST" attach "$BG_PID"
  assert_failure 1
  assert_output ""
  assert_equal "$stderr" "sockboost attach: $BG_PID (sleep): no socket at all, nothing to tune"
}

@test "with several processes, each says what it found; one without sockets fails the run" {
  local sock=$BATS_TEST_TMPDIR/s server
  start_bg "$BATS_TEST_TMPDIR/server.log" "$SBNBD_SERVER" -U "$sock" null:1M
  server=$BG_PID
  wait_for_socket "$sock"
  start_bg "$BATS_TEST_TMPDIR/sleep.log" sleep 60
  run --separate-stderr "$SOCKBOOST" attach --dry-run "$server" "$BG_PID"
  assert_failure 1
  assert_output "sockboost[sbnbd-server $server]: $LISTENER_LINE"
  assert_equal "$stderr" "sockboost attach: $BG_PID (sleep): no socket at all, nothing to tune"
}
