#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher over IPv6: its bind6 and connect6 programs report a
# program's listener and connections on ::1, and each gets TCP_NODELAY
# (the accepted ones from their listener).

load helpers

@test "host watcher: a listener and connections on ::1 get TCP_NODELAY" {
  requires python3 jq
  hm_setup
  python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null ||
    sb_skip "no IPv6 loopback here"
  local ready=$BATS_TEST_TMPDIR/ready go=$BATS_TEST_TMPDIR/go sockets
  hw_enable --programs python3
  touch "$go"
  hw_sockets -6 "$ready" "$go" >"$BATS_TEST_TMPDIR/out" 3>&- &
  sockets=$!
  kill_at_teardown "$sockets"
  wait "$sockets" || fail "the program failed"
  run cat "$BATS_TEST_TMPDIR/out"
  assert_output '{"listener": true, "client1": true, "client2": true, "accepted1": true, "accepted2": true}'
  [ "$(hw_watcher_count set)" -ge 3 ] || fail "status: $(hm_host status --json)"
}
