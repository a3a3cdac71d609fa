#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# enable again without --watcher, on a kernel whose BPF sets
# TCP_NODELAY: the new generation's TCP part is the kernel's, and the
# watcher of the one it replaced is stopped, its programs gone from the
# cgroup; and back with --watcher, a watcher again.

load helpers

watch_programs () {
  local out
  out=$("$HM_BPFTOOL" -j cgroup show "$HM_CGROUP")
  jq '[.[].name | select(startswith("sb_watch_"))] | length' <<<"${out:-[]}"
}

@test "host enable: from the watcher to the kernel's TCP hooks and back" {
  requires jq
  hm_setup
  local watcher again
  run "$SOCKBOOST" host check --cgroup "$HM_CGROUP" --json
  [ "$(jq -r .tcp_by <<<"$output")" = kernel ] ||
    skip "this kernel's BPF cannot set TCP_NODELAY: $output"
  hw_enable
  watcher=$(hw_watcher_pid)
  [ "$(watch_programs)" -eq 5 ] || fail "watch programs: $(watch_programs)"
  hm_enable
  for ((i = 0; i < 100; i++)); do process_gone "$watcher" && break; sleep 0.05; done
  process_gone "$watcher" || fail "the watcher $watcher outlived its generation"
  [ "$(watch_programs)" -eq 0 ] || fail "watch programs left: $(watch_programs)"
  [ "$(hm_host status --json | jq -c '[.tcp_by, .watcher]')" = '["kernel",null]' ] ||
    fail "status: $(hm_host status --json)"
  hw_enable
  again=$(hw_watcher_pid)
  [ "$again" != "$watcher" ] && [ "$(watch_programs)" -eq 5 ] ||
    fail "no new watcher: $again, $(watch_programs) programs"
}
