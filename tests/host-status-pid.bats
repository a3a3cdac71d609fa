#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost host status PID names the sockets of a process that host
# mode tuned, read from the marks its programs left (each socket taken
# through the process's pidfd, nothing changed): qemu-nbd's listener and
# the connections it accepted from it, with TCP_NODELAY; a qemu-io
# client outside the cgroup has none; with host mode off, it says so.

load helpers

@test "host status PID: qemu-nbd's listener and accepted socket tuned by host mode, a client outside none" {
  requires qemu-io
  hm_setup
  local img=$BATS_TEST_TMPDIR/disk.img
  truncate -s 1M "$img"
  run hm_host status --json 1
  assert_success
  assert_output '{"pid": 1, "on": false, "sockets": []}'
  hm_enable >/dev/null
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  qemu-io -r -f raw -c 'sleep 20000' "nbd://127.0.0.1:$QEMU_TCP_PORT/" 3>&- &
  local client=$!
  kill_at_teardown "$client"
  local deadline=$((SECONDS + 20))
  until [ "$(ss -Htn state established "( sport = :$QEMU_TCP_PORT )" | wc -l)" -ge 1 ]; do
    [ $SECONDS -lt $deadline ] || fail "qemu-io did not connect within 20 s"
    sleep 0.1
  done
  run hm_host status --json "$QEMU_TCP_PID"
  assert_success
  echo "qemu-nbd: $output" >&3
  # Its listener and the socket it accepted: their inodes, as ss sees them.
  local want
  want=$(ss -Htanpe "( sport = :$QEMU_TCP_PORT )" |
    awk -v pid="pid=$QEMU_TCP_PID," 'index($0, pid) { match($0, /ino:[0-9]+/)
      print substr($0, RSTART + 4, RLENGTH - 4) }' | sort -n | tr '\n' ' ')
  [ "$(jq -r '[.sockets[].inode] | sort | map(tostring) | join(" ")' <<<"$output") " = "$want" ] ||
    fail "wanted the sockets $want (ss): $output"
  [ "$(jq -c '[.sockets[] | [.tcp_nodelay, .unix_sndbuf, .program]] | unique' <<<"$output")" = '[[true,false,"qemu-nbd"]]' ] ||
    fail "wanted qemu-nbd's sockets with TCP_NODELAY: $output"
  run hm_host status --json "$client"
  assert_success
  assert_output "{\"pid\": $client, \"on\": true, \"sockets\": []}"
  run hm_host status "$QEMU_TCP_PID"
  assert_success
  assert_line --index 0 "process $QEMU_TCP_PID: 2 sockets tuned by host mode"
  assert_line --regexp '^  fd [0-9]+, inode [0-9]+: TCP_NODELAY \(for qemu-nbd\)$'
}
