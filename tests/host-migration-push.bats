#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Storage migration between two QEMU 7.2 system emulators over TCP, as
# libvirt drives it (migration-push-tcp.bats): the destination's NBD
# server leaves Nagle on and its 16-byte replies to the mirror's writes
# wait for delayed ACKs.  With both QEMUs in a cgroup where host mode is
# on, and no library anywhere, the mirror is at least 5x faster than in
# a plain cgroup (medians of interleaved rounds: how many replies wait
# is a race, helpers-migration.bash), and the copy is identical; host
# status counted the QEMUs' listeners and connections.

load helpers

@test "host mode: push mirror between QEMUs over TCP, fragmented image, >= 5x faster (before 8.0)" {
  hm_setup
  local img=$BATS_TEST_TMPDIR/fragmented.img
  # 64 MiB, up to a stall of about 45 ms per MiB: 2-3 s plain with QEMU
  # 7.2, against 0.1-0.2 s.
  make_sparse_image "$img" 64
  hm_enable
  hm_migration_rounds "$(tcp_rounds 3)" push "$img"
  echo "push: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks HOST_TIMES) with host mode" >&3
  run hm_host status --json
  assert_success
  # The destination's listener and the source's connection, each round.
  [ "$(jq -c '[.tuned[] | select(.program == "qemu-system-*") | .tcp_bind >= 2, .tcp_connect >= 2]' <<<"$output")" = "[true,true]" ] ||
    fail "host mode counted too few QEMU sockets: $output"
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${HOST_TIMES[@]}")" 5
}
