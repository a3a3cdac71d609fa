#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The counting's row of a process lasts as long as the process: a
# qemu-nbd with a counted connection has a row of its own in host status
# while it runs; once it is gone (or ended, a zombie its parent has not
# reaped), status removes the row, and what it counted stays in its
# program's row.

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

@test "host counting: an ended qemu-nbd its parent has not reaped has no row" {
  requires qemu-img qemu-nbd jq python3
  hm_setup
  local img=$BATS_TEST_TMPDIR/disk.img pidfile=$BATS_TEST_TMPDIR/child.pid
  local log=$BATS_TEST_TMPDIR/qemu-nbd.log parent pid i
  truncate -s 1M "$img"
  qt_private_netns
  hm_enable --observe >/dev/null
  # A parent that never reaps: its child, once killed, stays a zombie.
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" ${QT_NETNS[@]+"${QT_NETNS[@]}"} \
     python3 -c 'import os, sys, time
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
with open(sys.argv[1] + ".new", "w") as f:
    f.write(str(pid))
os.rename(sys.argv[1] + ".new", sys.argv[1])
time.sleep(120)' "$pidfile" qemu-nbd -r -t -f raw -b 127.0.0.1 -p 0 "$img") \
    2>"$log" 3>&- &
  parent=$!
  kill_at_teardown "$parent"
  wait_for_file "$pidfile" || fail "the parent wrote no pid: $(cat "$log")"
  pid=$(cat "$pidfile")
  kill_at_teardown "$pid"
  qt_wait_for_listener "$pid" "$log"
  qt_netns qemu-img info "nbd://127.0.0.1:$QEMU_TCP_PORT/" >/dev/null || fail "qemu-img info failed"
  run hm_host status --json
  assert_success
  [ "$(jq --argjson p "$pid" '[.processes[] | select(.pid == $p)] | length' <<<"$output")" = 1 ] ||
    fail "qemu-nbd $pid has no row while it runs: $output"
  kill -KILL "$pid"
  for ((i = 0; i < 500; i++)); do process_gone "$pid" && break; sleep 0.02; done
  # Gone, with its /proc entry still there: a zombie.
  process_gone "$pid" && [ -e "/proc/$pid/stat" ] ||
    fail "qemu-nbd $pid did not become a zombie"
  run hm_host status --json
  assert_success
  [ "$(jq --argjson p "$pid" '[.processes[] | select(.pid == $p)] | length' <<<"$output")" = 0 ] ||
    fail "the row of qemu-nbd $pid, ended (a zombie), is still there: $output"
  run hm_host status
  assert_success
  refute_line --regexp "^ *$pid qemu-nbd "
}
