#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode changes only the caller's own socket, never the other end
# of a connection.  A process of user nobody in the cgroup, named
# qemu-nbd, connects to root's unix server outside the cgroup (not an
# NBD program) and asks for the peer's name and its own: root's accepted
# socket keeps the kernel's default send buffer, and carries no mark of
# host mode (status PID), though the kernel made it in nobody's context
# and counts it in nobody's cgroup.

load helpers

@test "host mode: a process named qemu-nbd cannot raise the buffer of root's socket it is connected to" {
  hm_setup
  local enabled script out=$BATS_TEST_TMPDIR/server.out address=@sockboost-test-peer.$$.$RANDOM
  enabled=$(hm_enable)
  grep -q '^  unix: send buffer' <<<"$enabled" ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later): $enabled"
  hm_nobody_script script host-unix-peer.py
  python3 "$script" serve "$address" >"$out" 3>&- &
  local server=$!
  kill_at_teardown "$server"
  local deadline=$((SECONDS + 10))
  until grep -qx listening "$out"; do
    [ $SECONDS -lt $deadline ] || fail "the server did not listen within 10 s"
    sleep 0.05
  done
  run hm_as_nobody "$HM_CGROUP" python3 "$script" visit "$address" --name qemu-nbd
  assert_success
  deadline=$((SECONDS + 10))
  until [ "$(wc -l <"$out")" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "the server did not answer within 10 s: $(cat "$out")"
    sleep 0.05
  done
  echo "root's accepted socket after nobody's getpeername: $(sed -n 2p "$out")" >&3
  [ "$(sed -n 2p "$out")" = "$DEFAULT_TB" ] ||
    fail "root's socket was changed by its peer: $(sed -n 2p "$out"), not $DEFAULT_TB"
  run hm_host status --json "$server"
  assert_success
  assert_output "{\"pid\": $server, \"on\": true, \"sockets\": []}"
}
