#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Where the kernel's BPF sets TCP_NODELAY itself (Linux 6.1 and later,
# as here), enable uses its TCP hooks and starts no watcher; status says
# the kernel does it.

load helpers

@test "host enable on a kernel whose BPF sets TCP_NODELAY: no watcher" {
  requires jq
  hm_setup
  run "$SOCKBOOST" host check --cgroup "$HM_CGROUP" --json
  assert_success
  [ "$(jq -r .tcp_by <<<"$output")" != watcher ] ||
    skip "this kernel's BPF cannot set TCP_NODELAY: $output"
  hm_enable
  run hm_host status --json
  [ "$(jq -c '[.tcp_by, .watcher, .tcp_nodelay]' <<<"$output")" = '["kernel",null,true]' ] ||
    fail "status: $output"
  ! pgrep -f "^sb-host watch --pin-dir $HM_PINS\$" || fail "a watcher runs"
}
