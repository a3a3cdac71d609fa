#!/usr/bin/env bats
# qemu-nbd 7.2 over TCP serving a fragmented sparse image: without the
# library a read reply of data then hole waits for the client's delayed
# ACK; with the server under `sockboost run`, qemu-img dd, one READ of a
# stride at a time (every stride stalls in every plain copy: why not
# convert, helpers-qemu-tcp.bash), copies the image at least 10x faster,
# and the copy is identical.  qemu-nbd 8.0 and later (make check-compat)
# have no stall: the library must add none.

load helpers

@test "qemu-img dd from qemu-nbd over TCP, sparse image, a stride per READ: >= 10x boosted (before 8.0), identical" {
  requires qemu-img cmp
  local img=$BATS_TEST_TMPDIR/sparse.img
  # 48 strides, 48 stalls of about 45 ms: 2.2 s plain.
  make_sparse_image "$img" 6
  qt_private_netns
  start_qemu_nbd_tcp "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted "$img"
  local boosted_port=$QEMU_TCP_PORT
  time_copies "$(tcp_rounds 2)" "$img" "$plain_port" "$boosted_port" qemu_img_dd_tcp
  echo "qemu-img dd: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) boosted" >&3
  # Every plain copy stalls alike: a floor that load only adds to.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 10
}
