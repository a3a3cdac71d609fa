#!/usr/bin/env bats
# A non-blocking connect that returns EINPROGRESS (as libnbd's does) is
# still tuned, and the caller still sees EINPROGRESS.
# bats file_tags=sanitize

load helpers

@test "TCP_NODELAY is set after connect returns EINPROGRESS" {
  requires strace
  start_bg "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" tcp-server 4 accept
  wait_for_line "$BATS_TEST_TMPDIR/srv" '^port '
  port=$(awk '/^port/ { print $2 }' "$BATS_TEST_TMPDIR/srv")
  timeout 10 strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=connect,setsockopt \
    env LD_PRELOAD="$(preload_value)" timeout 2 "$PRELOAD_SOCKETS" tcp-client 4 "$port" nonblock \
    > "$BATS_TEST_TMPDIR/cli" || true
  # The kernel answered EINPROGRESS, the program saw it, and the option
  # was set on the same descriptor right after.
  run grep -E 'connect\(([0-9]+),.*= -1 EINPROGRESS' "$BATS_TEST_TMPDIR/trace"
  assert_success
  fd=$(sed -nE 's/.*connect\(([0-9]+),.*EINPROGRESS.*/\1/p' "$BATS_TEST_TMPDIR/trace")
  run grep -E "setsockopt\($fd, SOL_TCP, TCP_NODELAY, \[1\], 4\) = 0" "$BATS_TEST_TMPDIR/trace"
  assert_success
  run cat "$BATS_TEST_TMPDIR/cli"
  assert_line 'connect returned EINPROGRESS'
  assert_line --regexp '^connect fd [0-9]+ sndbuf [0-9]+ nodelay 1$'
}
