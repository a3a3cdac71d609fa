#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The counting's row of a process lasts as long as the process: a
# qemu-nbd with a counted connection has a row of its own in host status
# while it runs; once it is gone, status removes the row, and what it
# counted stays in its program's row.

load helpers

@test "host counting: a process's row goes with the process, its counts stay with its program" {
  requires qemu-img qemu-nbd jq
  hm_setup
  local img=$BATS_TEST_TMPDIR/disk.img
  truncate -s 1M "$img"
  qt_private_netns
  hm_enable --observe >/dev/null
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local pid=$QEMU_TCP_PID
  qt_netns qemu-img info "nbd://127.0.0.1:$QEMU_TCP_PORT/" >/dev/null || fail "qemu-img info failed"
  run hm_host status --json
  assert_success
  [ "$(jq --argjson p "$pid" '[.processes[] | select(.pid == $p) | .connections] | add' <<<"$output")" -ge 1 ] ||
    fail "qemu-nbd $pid has no row with its connection: $output"
  local program_conns
  program_conns=$(jq '[.tuned[] | select(.program == "qemu-nbd") | .connections] | add' <<<"$output")
  kill "$pid"
  wait "$pid" 2>/dev/null || true   # a child of this shell: reaped here
  run hm_host status --json
  assert_success
  [ "$(jq --argjson p "$pid" '[.processes[] | select(.pid == $p)] | length' <<<"$output")" = 0 ] ||
    fail "the row of qemu-nbd $pid, gone, is still there: $output"
  [ "$(jq '[.tuned[] | select(.program == "qemu-nbd") | .connections] | add' <<<"$output")" = "$program_conns" ] ||
    fail "qemu-nbd's program row lost counts with the process: $output"
}
