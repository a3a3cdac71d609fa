#!/usr/bin/env bats
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: without the
# library every data/hole boundary of a read reply waits for a delayed
# ACK; with the server under `sockboost run`, qemu-img convert copies the
# image at least 10x faster, and the copy is identical.  qemu-nbd 8.0 and
# later (make check-compat) have no stall: the library must add none.

load helpers

@test "qemu-img convert from qemu-nbd over TCP, sparse image: >= 10x boosted (before 8.0), identical" {
  requires qemu-img cmp
  local img=$BATS_TEST_TMPDIR/sparse.img
  # 96 boundaries: about 4 s plain.
  make_sparse_image "$img" 12
  start_qemu_nbd_tcp "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted "$img"
  local boosted_port=$QEMU_TCP_PORT
  time_copies "$(tcp_rounds)" "$img" "$plain_port" "$boosted_port" qemu_img_copy_tcp
  echo "qemu-img convert: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s boosted" >&3
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${BOOSTED_TIMES[@]}")" 10
}
