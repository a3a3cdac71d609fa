#!/usr/bin/env bats
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: without the
# library every data/hole boundary of a read reply waits for a delayed
# ACK; with the server under `sockboost run`, qemu-img convert copies the
# image at least 10x faster, and the copy is identical.

load helpers

@test "qemu-img convert from qemu-nbd over TCP, sparse image: >= 10x boosted, identical" {
  requires qemu-img cmp
  local img=$BATS_TEST_TMPDIR/sparse.img plain boosted
  # 96 boundaries: about 4 s plain.
  make_sparse_image "$img" 12
  start_qemu_nbd_tcp "$img"
  time_command plain qemu_img_copy_tcp "$QEMU_TCP_PORT" "$BATS_TEST_TMPDIR/plain.img"
  cmp "$img" "$BATS_TEST_TMPDIR/plain.img"
  start_qemu_nbd_tcp --boosted "$img"
  time_command boosted qemu_img_copy_tcp "$QEMU_TCP_PORT" "$BATS_TEST_TMPDIR/boosted.img"
  cmp "$img" "$BATS_TEST_TMPDIR/boosted.img"
  echo "qemu-img convert: $plain s plain, $boosted s boosted" >&3
  assert_speedup "$plain" "$boosted" 10
}
