#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A process of another user (nobody) that names itself qemu-nbd, holds
# 3,000 sockets and binds new ones in a loop: every bind is an event that
# would send the watcher through all 3,000.  The kernel programs drop its
# uid's events beyond 256 a second, so the ring buffer never fills for
# the others; its share of the watcher's time runs out (events
# throttled); the watcher stays under a fifth of a core and a bounded
# size; and root's qemu-nbd started meanwhile in the same cgroup still
# gets TCP_NODELAY on its listener.

load helpers

# The watcher's CPU time so far, in clock ticks.
cpu_ticks () {
  local stat
  stat=$(cat "/proc/$1/stat") || return 1
  stat=${stat##*) }
  awk '{ print $12 + $13 }' <<<"$stat"
}

@test "host watcher: a flood of binds from another user is throttled, root's qemu-nbd still tuned" {
  requires python3 jq setpriv qemu-nbd
  hm_setup
  local dir watcher flood before after ticks binds img python
  # The system's python3, which nobody may run (not a shim in root's home).
  python=$(PATH=/usr/bin:/bin command -v python3) || sb_skip "needs /usr/bin/python3"
  hw_enable
  watcher=$(hw_watcher_pid)
  # The kernel names a process after the path it was started by: a link
  # named qemu-nbd to python3 makes a "qemu-nbd" that is python.
  # Where nobody may reach it (the test's own directory is root's alone).
  dir=$(mktemp -d /tmp/sockboost-watcher-test.XXXXXX)
  cleanup_push "rm -rf '$dir'"
  chmod 0755 "$dir"
  ln -s "$python" "$dir/qemu-nbd"
  cp "$BATS_TEST_DIRNAME/watcher-flood.py" "$dir/"
  chmod 0644 "$dir/watcher-flood.py"
  before=$(cpu_ticks "$watcher")
  (ulimit -n 4096 && exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" setpriv --reuid=65534 \
     --regid=65534 --clear-groups "$dir/qemu-nbd" "$dir/watcher-flood.py" 3000 4) \
     >"$BATS_TEST_TMPDIR/binds" 3>&- &
  flood=$!
  kill_at_teardown "$flood"
  sleep 1
  img=$BATS_TEST_TMPDIR/empty.img
  truncate -s 1M "$img"
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  for ((i = 0; i < 100; i++)); do
    [ "$(hm_host status --json "$QEMU_TCP_PID" | jq '[.sockets[] | .tcp_nodelay] | any')" = true ] && break
    sleep 0.05
  done
  run hm_host status --json "$QEMU_TCP_PID"
  [ "$(jq '[.sockets[] | .tcp_nodelay] | any' <<<"$output")" = true ] ||
    fail "root's qemu-nbd listener got nothing during the flood: $output"
  wait "$flood" || fail "the flood failed"
  after=$(cpu_ticks "$watcher")
  binds=$(cat "$BATS_TEST_TMPDIR/binds")
  ticks=$(getconf CLK_TCK)
  run hm_host status --json
  echo "flood: $binds binds in 4 s; watcher: $((after - before)) ticks of $((4 * ticks)), $(jq -c '.watcher | {events, set, throttled, lost, swept}' <<<"$output")" >&3
  [ "$(jq '[.watcher.limited, .watcher.throttled] | min' <<<"$output")" -gt 0 ] ||
    fail "nothing limited or throttled: $output"
  [ "$(jq .watcher.lost <<<"$output")" -eq 0 ] || fail "events lost: $output"
  # Each handled event of the flood costs 3,000 looks, and 4,096 a
  # second is its uid's share.
  [ $((after - before)) -le $((4 * ticks / 5)) ] ||
    fail "the watcher used $((after - before)) ticks in 4 s"
  [ "$(awk '/^VmRSS:/ { print $2 }' "/proc/$watcher/status")" -lt 65536 ] ||
    fail "the watcher grew: $(grep VmRSS "/proc/$watcher/status")"
}
