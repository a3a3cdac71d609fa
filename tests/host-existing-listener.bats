#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A qemu-nbd 7.2 that listened before host mode was enabled: enable
# gives its listener TCP_NODELAY (the processes of the cgroup that the
# filter takes, their listeners taken through their pidfds), so that
# the connections it accepts from then on are tuned: qemu-img convert
# copies from it at least 10x faster than from the same server in a
# plain cgroup.  A python3 listener in the same cgroup is left alone.

load helpers

@test "host enable adopts the listener of a qemu-nbd started before it: >= 10x faster (before 8.0)" {
  requires qemu-img qemu-nbd cmp
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img plain_cgroup other
  hm_cgroup plain_cgroup
  # 64 boundaries: about 3 s plain.
  make_sparse_image "$img" 8
  hm_start_qemu_nbd_tcp "$plain_cgroup" "$img"
  local plain_port=$QEMU_TCP_PORT
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local host_port=$QEMU_TCP_PORT host_pid=$QEMU_TCP_PID
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" python3 -c '
import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); time.sleep(60)') 3>&- &
  other=$!
  kill_at_teardown "$other"
  run hm_enable
  assert_line "  tcp: listeners that were there already: 1, of 1 process the filter takes, got TCP_NODELAY too"
  run hm_host status --json "$host_pid"
  [ "$(jq -c '[.sockets[] | .tcp_nodelay]' <<<"$output")" = "[true]" ] ||
    fail "qemu-nbd's listener has no mark: $output"
  run hm_host status --json "$other"
  assert_output "{\"pid\": $other, \"on\": true, \"sockets\": []}"
  time_copies "$(tcp_rounds)" "$img" "$plain_port" "$host_port" qemu_img_copy_tcp
  echo "qemu-img convert: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s adopted" >&3
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${BOOSTED_TIMES[@]}")" 10
}
