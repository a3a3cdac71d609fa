#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher's first sweep, under each user's share of its time: four
# programs of root's that connected to themselves before enable, each
# holding 1,500 other sockets, are more than one second's share (4,096
# sockets looked at); the sweep goes through them as the share allows,
# so both ends of every connection get TCP_NODELAY within a few
# seconds, none passed by.

load helpers

@test "host watcher: a sweep bigger than a user's share still reaches every process" {
  requires python3 jq
  hm_setup
  local i pids=()
  for i in 1 2 3 4; do
    hw_sockets_py watcher-pair.py 1500 "$BATS_TEST_TMPDIR/ready.$i" \
      >"$BATS_TEST_TMPDIR/out.$i" 3>&- &
    pids+=($!)
    kill_at_teardown $!
  done
  for i in 1 2 3 4; do
    wait_for_file "$BATS_TEST_TMPDIR/ready.$i" 20 || fail "program $i did not connect"
  done
  hw_enable --programs python3
  for i in 1 2 3 4; do
    wait "${pids[i - 1]}" || fail "program $i failed"
  done
  run cat "$BATS_TEST_TMPDIR"/out.{1,2,3,4}
  assert_output "$(printf 'True True\nTrue True\nTrue True\nTrue True')"
  [ "$(hw_watcher_count swept)" -ge 8 ] || fail "status: $(hm_host status --json)"
}
