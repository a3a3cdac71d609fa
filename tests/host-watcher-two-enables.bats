#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Two enables at once where the watcher is the TCP part: they wait for
# each other's lock, each may start a watcher, and the one that comes
# second finds the first running: both succeed, naming the same watcher,
# and one watcher runs.

load helpers

@test "host enable --watcher twice at once: both succeed, one watcher" {
  requires jq
  hm_setup
  local round a b pids
  # Whatever a failed round leaves: disable, then the test's own watchers.
  cleanup_push "pkill -KILL -f '^sb-host watch --pin-dir $HM_PINS\$'"
  cleanup_push "hm_host disable >/dev/null 2>&1"
  for round in 1 2 3; do
    hm_host enable --cgroup "$HM_CGROUP" --watcher >"$BATS_TEST_TMPDIR/a" 2>&1 &
    a=$!
    hm_host enable --cgroup "$HM_CGROUP" --watcher >"$BATS_TEST_TMPDIR/b" 2>&1 &
    b=$!
    wait "$a" || fail "the first enable failed: $(cat "$BATS_TEST_TMPDIR/a")"
    wait "$b" || fail "the second enable failed: $(cat "$BATS_TEST_TMPDIR/b")"
    pids=$(pgrep -f "^sb-host watch --pin-dir $HM_PINS\$" | tr '\n' ' ')
    [ "$(wc -w <<<"$pids")" -eq 1 ] || fail "round $round: watchers $pids"
    [ "$(hw_watcher_pid)" = "${pids% }" ] || fail "status names $(hw_watcher_pid), not $pids"
    hm_host disable >/dev/null
  done
}
