#!/usr/bin/env bats
# Storage migration between two QEMU system emulators over TCP, as
# libvirt drives it for virsh migrate --copy-storage-all: the destination
# exports its disk writable (nbd-server-start, block-export-add) and the
# source mirrors a fragmented image into it (blockdev-mirror to an nbd
# node) until the job is ready.  QEMU 7.2 leaves Nagle on for the
# connection it accepts, and its 16-byte replies to the mirror's writes
# wait for delayed ACKs: with both QEMUs under the library the mirror is
# at least 5x faster (medians of interleaved rounds: how many replies
# wait is a race, helpers-migration.bash), and the copy is identical.
# QEMU 8.0 and later (make check-compat) have no stall: the library must
# add none.

load helpers

@test "push mirror between QEMUs over TCP, fragmented image: >= 5x with the library (before 8.0), identical" {
  local img=$BATS_TEST_TMPDIR/fragmented.img
  # 64 MiB, up to a stall of about 45 ms per MiB: 2-3 s plain with QEMU
  # 7.2, against 0.1-0.2 s.
  make_sparse_image "$img" 64
  migration_rounds "$(tcp_rounds 3)" push "$img"
  echo "push: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with the library" >&3
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${BOOSTED_TIMES[@]}")" 5
}
