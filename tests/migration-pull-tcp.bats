#!/usr/bin/env bats
# Backup pull from a running QEMU over TCP, as libvirt sets it up for
# virsh backup-begin in pull mode: the QEMU exports its disk read-only
# (nbd-server-start, block-export-add) and a backup program copies the
# export, here qemu-img convert of a fragmented image.  QEMU 7.2 leaves
# Nagle on for the connection it accepts, so every data/hole boundary of
# a read reply waits for a delayed ACK: with the QEMU under the library
# (qemu-img as it is) the copy is at least 10x faster, and identical.
# QEMU 8.0 and later (make check-compat) have no stall: the library must
# add none.

load helpers

@test "backup pull from a QEMU's export over TCP, qemu-img convert of a fragmented image: >= 10x with the library (before 8.0), identical" {
  local img=$BATS_TEST_TMPDIR/fragmented.img
  # 64 data/hole boundaries: about 3 s plain with QEMU 7.2.
  make_sparse_image "$img" 8
  migration_rounds "$(tcp_rounds 2)" pull-convert "$img"
  echo "pull: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s with the library" >&3
  # The stall is a floor no round beats; load only ever adds time.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 10
}
