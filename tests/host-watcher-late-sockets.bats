#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher loses the race: it is stopped (SIGSTOP) while a program of
# the cgroup binds, listens, connects two clients and accepts one of
# them, so nothing it made was tuned and the accepted sockets did not
# inherit TCP_NODELAY from their listener.  Let go, the watcher still
# gives TCP_NODELAY to all five: the listener and the clients from their
# own events, and each accepted socket from the report of the kernel
# when the connection was established from an untuned listener, the
# second one found on a retry, once the program has accepted it.

load helpers

@test "host watcher: sockets made while it was held up get TCP_NODELAY too" {
  requires python3 jq
  hm_setup
  local ready=$BATS_TEST_TMPDIR/ready go=$BATS_TEST_TMPDIR/go watcher sockets
  hw_enable --programs python3
  watcher=$(hw_watcher_pid)
  kill -STOP "$watcher"
  cleanup_push "kill -CONT $watcher"
  hw_sockets "$ready" "$go" >"$BATS_TEST_TMPDIR/out" 3>&- &
  sockets=$!
  kill_at_teardown "$sockets"
  wait_for_file "$ready" 20 || fail "the program did not make its sockets"
  kill -CONT "$watcher"
  touch "$go"
  wait "$sockets" || fail "the program failed"
  run cat "$BATS_TEST_TMPDIR/out"
  assert_output '{"listener": true, "client1": true, "client2": true, "accepted1": true, "accepted2": true}'
  [ "$(hw_watcher_count set_late)" -ge 1 ] ||
    fail "no socket found on a retry: $(hm_host status --json)"
  [ "$(hw_watcher_count set)" -ge 5 ] ||
    fail "fewer than 5 sockets set: $(hm_host status --json)"
}
