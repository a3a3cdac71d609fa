#!/usr/bin/env bats
# Backup pull from a running QEMU over TCP, as libvirt sets it up for
# virsh backup-begin in pull mode: the QEMU exports its disk read-only
# (nbd-server-start, block-export-add) and a backup program copies the
# export, here qemu-img dd of a fragmented image, one READ of a stride at
# a time.  QEMU 7.2 leaves Nagle on for the connection it accepts, so a
# read reply of data then hole waits for a delayed ACK, every stride of
# every plain copy (qemu-img convert's stalls are a race:
# helpers-migration.bash): with the QEMU under the library (qemu-img as
# it is) the copy is at least 10x faster, and identical.  QEMU 8.0 and
# later (make check-compat) have no stall: the library must add none.

load helpers

@test "backup pull from a QEMU's export over TCP, qemu-img dd of a fragmented image: >= 10x with the library (before 8.0), identical" {
  local img=$BATS_TEST_TMPDIR/fragmented.img
  # 64 strides, 64 stalls of about 45 ms: 3 s plain with QEMU 7.2.
  make_sparse_image "$img" 8
  migration_rounds "$(tcp_rounds 2)" pull-dd "$img"
  echo "pull: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with the library" >&3
  # Every plain pull stalls alike: a floor that load only adds to.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 10
}
