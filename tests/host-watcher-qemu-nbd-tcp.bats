#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode with the watcher as its TCP part (enable --watcher, what
# enable chooses by itself where the kernel's BPF cannot set
# TCP_NODELAY, before Linux 6.1): qemu-nbd 7.2 started by a plain exec
# in the cgroup, serving a fragmented sparse image over TCP, gets
# TCP_NODELAY on its listener from the watcher, which its connections
# inherit: qemu-img dd copies from it at least 10x faster than from the
# same server in a plain cgroup, the copy identical, with no library
# anywhere; status names the watcher and counts what it did, and doctor
# names it too.

load helpers

@test "host enable --watcher: qemu-nbd over TCP in the cgroup >= 10x faster, no library, status names the watcher" {
  requires qemu-img qemu-nbd cmp jq
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img plain_cgroup pid
  hm_cgroup plain_cgroup
  # 48 strides, 48 stalls of about 45 ms: 2.2 s plain.
  make_sparse_image "$img" 6
  hw_enable
  assert_output --partial "  tcp: TCP_NODELAY set by the watcher (pid "
  qt_private_netns
  hm_start_qemu_nbd_tcp "$plain_cgroup" "$img"
  local plain_port=$QEMU_TCP_PORT plain_pid=$QEMU_TCP_PID
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local host_port=$QEMU_TCP_PORT host_pid=$QEMU_TCP_PID
  time_copies "$(tcp_rounds 2)" "$img" "$plain_port" "$host_port" qemu_img_dd_tcp
  echo "qemu-img dd: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with the watcher" >&3
  for pid in "$plain_pid" "$host_pid"; do
    ! grep -q libsockboost "/proc/$pid/maps" || fail "qemu-nbd $pid maps the library"
  done
  run hm_host status --json
  assert_success
  [ "$(jq -r '[.tcp_by, .tcp_nodelay, .whole, .watcher.running] | @tsv' <<<"$output")" = \
    "$(printf 'watcher\ttrue\ttrue\ttrue')" ] || fail "status: $output"
  [ "$(jq '.watcher.set' <<<"$output")" -ge 1 ] || fail "the watcher set nothing: $output"
  [ "$(jq '[.tuned[] | select(.program == "qemu-nbd") | .tcp_bind] | add' <<<"$output")" -ge 1 ] ||
    fail "no qemu-nbd listener counted: $output"
  [ "$(jq '[.links[] | select(.name | test("^(bind|connect)[46]$"))] | length' <<<"$output")" -eq 0 ] ||
    fail "the kernel's TCP hooks are pinned too: $output"
  # From the kernel: the watcher's programs on the cgroup, not the TCP hooks.
  run "$HM_BPFTOOL" -j cgroup show "$HM_CGROUP"
  assert_success
  [ "$(jq '[.[].name | select(startswith("sb_host_tcp"))] | length' <<<"$output")" -eq 0 ] &&
    [ "$(jq '[.[].name | select(startswith("sb_watch_"))] | length' <<<"$output")" -eq 5 ] ||
    fail "programs on the cgroup: $output"
  run hm_host status
  assert_line --regexp "^tcp: TCP_NODELAY set by the watcher \(pid [0-9]+\)"
  # doctor reads the default pins: the test's, bound there privately.
  run private_mount_ns sh -c 'mount --bind "$1" /sys/fs/bpf && shift && exec "$@"' \
    _ "$HM_BPFFS" "$SOCKBOOST" doctor
  assert_output --regexp "host mode +on since .*; TCP_NODELAY by the watcher \(pid $(hw_watcher_pid)\)"
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 10
}
