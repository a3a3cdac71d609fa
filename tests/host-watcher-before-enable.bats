#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Sockets made before the watcher started (host mode enabled after the
# program, or the watcher started again after it died): no event will
# ever name them, so the watcher sweeps its cgroup when it starts and
# gives TCP_NODELAY to the listeners and connections of the processes
# the filter takes.

load helpers

@test "host watcher: a program's listener and connections made before enable get TCP_NODELAY" {
  requires python3 jq
  hm_setup
  local ready=$BATS_TEST_TMPDIR/ready sockets
  hw_sockets --before "$ready" >"$BATS_TEST_TMPDIR/out" 3>&- &
  sockets=$!
  kill_at_teardown "$sockets"
  wait_for_file "$ready" 20 || fail "the program did not make its sockets"
  hw_enable --programs python3
  wait "$sockets" || fail "the program failed"
  run cat "$BATS_TEST_TMPDIR/out"
  assert_output '{"listener": true, "client1": true, "client2": true, "accepted1": true, "accepted2": true}'
  # enable adopts the listener; the four connections are the sweep's.
  [ "$(hw_watcher_count swept)" -ge 4 ] ||
    fail "the sweep set fewer than 4: $(hm_host status --json)"
}
