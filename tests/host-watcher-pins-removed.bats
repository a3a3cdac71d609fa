#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher serves the generation whose counts it holds: when its
# pins are removed by hand (not by disable, which stops it), it sees
# the pin directory change, finds its generation gone and leaves, and
# its programs leave the cgroup with it: host mode is off, and nothing
# of it goes on tuning unseen.

load helpers

@test "host watcher: its pins removed by hand, it leaves with its programs" {
  requires jq
  hm_setup
  local watcher out
  hw_enable
  watcher=$(hw_watcher_pid)
  rm -r "$HM_PINS"
  for ((i = 0; i < 100; i++)); do process_gone "$watcher" && break; sleep 0.05; done
  process_gone "$watcher" || fail "the watcher $watcher outlived its pins"
  out=$("$HM_BPFTOOL" -j cgroup show "$HM_CGROUP")
  [ "$(jq '[.[].name | select(startswith("sb_watch_"))] | length' <<<"${out:-[]}")" -eq 0 ] ||
    fail "the watcher's programs are still attached: $out"
}
