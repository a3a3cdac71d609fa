#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: every
# data/hole boundary of a read reply waits for the client's delayed ACK
# (helpers-qemu-tcp.bash).  With host mode on in the cgroup of one of
# two identical servers, qemu-img convert copies from it at least 10x
# faster than from the other, in interleaved rounds, and the copy is
# identical; no process maps the library, nor has it in LD_PRELOAD: the
# kernel set TCP_NODELAY on qemu-nbd's listener, which the connections
# it accepts inherit (counted for qemu-nbd in host status).

load helpers

@test "host mode: qemu-img convert from qemu-nbd over TCP, sparse image, >= 10x faster with no library (before 8.0)" {
  requires qemu-img qemu-nbd cmp
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img plain_cgroup
  hm_cgroup plain_cgroup
  # 96 boundaries: about 4 s plain.
  make_sparse_image "$img" 12
  hm_enable
  hm_start_qemu_nbd_tcp "$plain_cgroup" "$img"
  local plain_port=$QEMU_TCP_PORT plain_pid=$QEMU_TCP_PID
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local host_port=$QEMU_TCP_PORT host_pid=$QEMU_TCP_PID
  grep -qx "0::${HM_CGROUP#"$HM_CGROUP2"}" "/proc/$host_pid/cgroup" ||
    fail "qemu-nbd is not in the test's cgroup: $(cat "/proc/$host_pid/cgroup")"
  time_copies "$(tcp_rounds)" "$img" "$plain_port" "$host_port" qemu_img_copy_tcp
  echo "qemu-img convert: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s with host mode" >&3
  # No library anywhere: not mapped, not asked for.
  for pid in "$plain_pid" "$host_pid"; do
    ! grep -q libsockboost "/proc/$pid/maps" || fail "qemu-nbd $pid maps the library"
    ! tr '\0' '\n' <"/proc/$pid/environ" | grep -q '^LD_PRELOAD=' ||
      fail "qemu-nbd $pid has LD_PRELOAD"
  done
  ! grep -qs libsockboost /etc/ld.so.preload || fail "/etc/ld.so.preload names the library"
  run hm_host status --json
  assert_success
  # Its listener, whose TCP_NODELAY the connections it accepts inherit.
  [ "$(jq '[.tuned[] | select(.program == "qemu-nbd") | .tcp_bind] | add' <<<"$output")" -ge 1 ] ||
    fail "host mode counted no qemu-nbd listener: $output"
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${BOOSTED_TIMES[@]}")" 10
}
