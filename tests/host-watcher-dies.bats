#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher killed (SIGKILL: no chance to say so itself): status does
# not pretend, in text and JSON (not running, not whole, no
# TCP_NODELAY), and its programs went with it; enable starts a new one;
# disable stops it and leaves no process and no program on the cgroup.

load helpers

@test "host watcher: killed, status says so; enable starts it again; disable leaves nothing" {
  requires jq
  hm_setup
  local watcher again
  hw_enable
  watcher=$(hw_watcher_pid)
  kill -KILL "$watcher"
  for ((i = 0; i < 100; i++)); do process_gone "$watcher" && break; sleep 0.05; done
  run hm_host status
  assert_success
  assert_line "host mode: on, but not whole (run 'sockboost host enable' again)"
  assert_line "tcp: by the watcher, which is NOT running: nothing gets TCP_NODELAY ('sockboost host enable' starts it again)"
  run hm_host status --json
  [ "$(jq -c '[.whole, .tcp_nodelay, .watcher.running, .watcher.pid]' <<<"$output")" = \
    '[false,false,false,null]' ] || fail "status --json: $output"
  run "$HM_BPFTOOL" -j cgroup show "$HM_CGROUP"
  [ "$(jq '[.[].name | select(startswith("sb_watch_"))] | length' <<<"${output:-[]}")" -eq 0 ] ||
    fail "the dead watcher's programs are still attached: $output"

  run hm_enable --watcher
  assert_line "host mode was on already for cgroup $HM_CGROUP"
  assert_line "  tcp: the watcher was not running: started again"
  again=$(hw_watcher_pid) || fail "no watcher after enable"
  [ "$again" != "$watcher" ] || fail "the same pid $again"
  cleanup_push "kill -KILL $again 2>/dev/null"
  [ "$(tr -d '\0' <"/proc/$again/cmdline")" = "sb-hostwatch--pin-dir$HM_PINS" ] ||
    fail "pid $again is not the watcher: $(tr '\0' ' ' <"/proc/$again/cmdline")"
  [ "$(hm_host status --json | jq -c '[.whole, .watcher.running]')" = '[true,true]' ] ||
    fail "status after enable: $(hm_host status --json)"

  run hm_host disable
  assert_success
  for ((i = 0; i < 100; i++)); do process_gone "$again" && break; sleep 0.05; done
  process_gone "$again" || fail "the watcher $again outlived disable"
  run hm_attached_ids "$HM_CGROUP"
  assert_output ""
}
