#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: a read reply
# of data then hole waits for the client's delayed ACK
# (helpers-qemu-tcp.bash).  With host mode on in the cgroup of one of
# two identical servers, qemu-img dd, a stride per READ (a stall per
# stride in every plain copy), copies from it at least 10x faster than
# from the other, in interleaved rounds, and the copy is identical; no
# process maps the library, nor has it in LD_PRELOAD: the
# kernel set TCP_NODELAY on qemu-nbd's listener, which the connections
# it accepts inherit (counted for qemu-nbd in host status).

load helpers

@test "host mode: qemu-img dd from qemu-nbd over TCP, sparse image, >= 10x faster with no library (before 8.0)" {
  requires qemu-img qemu-nbd cmp
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img plain_cgroup
  hm_cgroup plain_cgroup
  # 48 strides, 48 stalls of about 45 ms: 2.2 s plain.
  make_sparse_image "$img" 6
  hm_enable
  qt_private_netns
  hm_start_qemu_nbd_tcp "$plain_cgroup" "$img"
  local plain_port=$QEMU_TCP_PORT plain_pid=$QEMU_TCP_PID
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local host_port=$QEMU_TCP_PORT host_pid=$QEMU_TCP_PID
  grep -qx "0::${HM_CGROUP#"$HM_CGROUP2"}" "/proc/$host_pid/cgroup" ||
    fail "qemu-nbd is not in the test's cgroup: $(cat "/proc/$host_pid/cgroup")"
  time_copies "$(tcp_rounds 2)" "$img" "$plain_port" "$host_port" qemu_img_dd_tcp
  echo "qemu-img dd: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with host mode" >&3
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
  # Every plain copy stalls alike: a floor that load only adds to.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 10
}
