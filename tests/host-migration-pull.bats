#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Backup pull between two QEMU 7.2 system emulators over TCP: the
# source exports its disk read-only and another QEMU's mirror job copies
# it (pull-mirror of migration-run.py).  QEMU 7.2's NBD server leaves
# Nagle on, so each data/hole boundary of a read reply waits for a
# delayed ACK.  With both QEMUs in a cgroup where host mode is on, and
# no library anywhere, the pull is at least 10x faster than in a plain
# cgroup (fastest of interleaved rounds), and the copy is identical.

load helpers

@test "host mode: pull by a QEMU's mirror from another QEMU over TCP, fragmented image, >= 10x faster (before 8.0)" {
  hm_setup
  local img=$BATS_TEST_TMPDIR/fragmented.img
  # 64 data/hole boundaries: about 3 s plain with QEMU 7.2.
  make_sparse_image "$img" 8
  hm_enable
  hm_migration_rounds "$(tcp_rounds 2)" pull-mirror "$img"
  echo "pull: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks HOST_TIMES) with host mode" >&3
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${HOST_TIMES[@]}")" 10
}
