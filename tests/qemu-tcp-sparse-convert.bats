#!/usr/bin/env bats
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: without the
# library every data/hole boundary of a read reply waits for a delayed
# ACK; with the server under `sockboost run`, qemu-img convert copies the
# image at least 10x faster, and the copy is identical.  qemu-nbd 8.0 and
# later (make check-compat) have no stall: the library must add none.

load helpers

@test "qemu-img convert from qemu-nbd over TCP, sparse image: >= 10x boosted (before 8.0), identical" {
  requires qemu-img cmp
  local img=$BATS_TEST_TMPDIR/sparse.img round t plain=() boosted=()
  # 96 boundaries: about 4 s plain.
  make_sparse_image "$img" 12
  start_qemu_nbd_tcp "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted "$img"
  local boosted_port=$QEMU_TCP_PORT
  for ((round = 0; round < $(tcp_rounds); round++)); do
    time_command t qemu_img_copy_tcp "$plain_port" "$BATS_TEST_TMPDIR/plain.img"
    cmp "$img" "$BATS_TEST_TMPDIR/plain.img"
    plain+=("$t")
    time_command t qemu_img_copy_tcp "$boosted_port" "$BATS_TEST_TMPDIR/boosted.img"
    cmp "$img" "$BATS_TEST_TMPDIR/boosted.img"
    boosted+=("$t")
  done
  echo "qemu-img convert: ${plain[*]} s plain, ${boosted[*]} s boosted" >&3
  assert_tcp_gain "$(median_of "${plain[@]}")" "$(median_of "${boosted[@]}")" 10
}
