#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# With the tuning's TCP parts on, the counting adds no program of its own
# to a bind or a connect: the tuning's hooks tag the sockets they take
# for it, and the counting attaches its sock_ops program alone (what a
# program host mode leaves alone pays for the counting is then the
# sock_ops calls of a connection's start, host/overhead-bench).  Its
# sockets are still counted, and a listener tagged before an enable
# that makes a new generation still has its connections counted after.
# Observing (nothing tuned), the counting tags with hooks of its own.

load helpers

# The programs attached to the test's cgroup at the cgroup hooks of
# TCP's bind and connect and at sock_ops, one "HOOK NAME" line each,
# sorted.
tcp_hooks () {
  local type id
  "$SB_BUILD/tests/progs/bpf-cgroup-progs" "$HM_CGROUP" | while read -r type id; do
    case $type in
      3) type=sock_ops ;; 8) type=bind4 ;; 9) type=bind6 ;;
      10) type=connect4 ;; 11) type=connect6 ;; *) continue ;;
    esac
    echo "$type $("$HM_BPFTOOL" -j prog show id "$id" | jq -r .name)"
  done | sort
}

# Whether `host status --json` counts N connections for qemu-nbd.
qemu_nbd_connections () {
  local json
  json=$(hm_host status --json) || fail "host status failed: $json"
  [ "$(jq '[.tuned[] | select(.program == "qemu-nbd") | .connections] | add // 0' <<<"$json")" = "$1" ] ||
    fail "wanted $1 connections counted for qemu-nbd: $json"
}

@test "host counting beside the tuning: one program a bind or connect, its sockets counted" {
  requires jq python3
  hm_setup
  local port_file=$BATS_TEST_TMPDIR/port hooks
  hm_enable >/dev/null
  hooks=$(tcp_hooks)
  echo "$hooks" >&3
  [ "$hooks" = "bind4 sb_host_tcp_bind4
bind6 sb_host_tcp_bind6
connect4 sb_host_tcp_connect4
connect6 sb_host_tcp_connect6
sock_ops sb_stalls_sockops" ] || fail "wanted the tuning's TCP hooks and the counting's sock_ops alone: $hooks"

  # Tagged by the tuning's bind and connect hooks: a connection made and
  # one accepted, both counted.
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" --name qemu-nbd
  assert_success
  [ "$(jq -c .tcp_nodelay <<<"$output")" = "[1,1]" ] || fail "qemu-nbd's TCP kept Nagle: $output"
  qemu_nbd_connections 2

  # A listener bound now, its tag carried into the next generation.
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" python3 -c '
import socket, sys, time
sys.path.insert(0, sys.argv[1])
from procname import set_name
set_name("qemu-nbd")
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
open(sys.argv[2] + ".tmp", "w").write("%d\n" % listener.getsockname()[1])
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(600)' "$SB_TESTS_DIR" "$port_file") 3>&- &
  kill_at_teardown "$!"
  wait_for_file "$port_file"
  hm_enable --sndbuf 1M >/dev/null
  [ "$(tcp_hooks)" = "$hooks" ] || fail "the second enable attached other programs: $(tcp_hooks)"
  python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' \
    "$(cat "$port_file")" || fail "cannot connect to the listener"
  qemu_nbd_connections 3
}

@test "host counting observing: its own bind and connect hooks tag the sockets" {
  requires jq python3
  hm_setup
  local hooks
  hm_enable --observe >/dev/null
  hooks=$(tcp_hooks)
  [ "$hooks" = "bind4 sb_stalls_bind4
bind6 sb_stalls_bind6
connect4 sb_stalls_connect4
connect6 sb_stalls_connect6
sock_ops sb_stalls_sockops" ] || fail "wanted the counting's own hooks alone: $hooks"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" --name qemu-nbd
  assert_success
  [ "$(jq -c .tcp_nodelay <<<"$output")" = "[0,0]" ] || fail "observing, qemu-nbd's TCP got TCP_NODELAY: $output"
  qemu_nbd_connections 2
}

@test "host status observing: neither TCP nor unix is tuned, said in words" {
  hm_setup
  hm_enable --observe >/dev/null
  run hm_host status
  assert_success
  assert_line "tcp: not tuned ('sockboost host enable' tunes them)"
  assert_line "unix: not tuned ('sockboost host enable' raises their send buffers)"
  refute_line --partial "off: off"
}
