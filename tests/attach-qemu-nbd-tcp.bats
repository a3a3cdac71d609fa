#!/usr/bin/env bats
# A qemu-nbd already serving a fragmented sparse image over TCP, started
# without the library: after 'sockboost attach', which sets TCP_NODELAY on
# its listener (the connections it accepts later inherit it), qemu-img
# convert of the export is at least 10x faster (qemu-nbd before 8.0
# leaves Nagle on, so every data/hole boundary waited for a delayed ACK),
# and the copy is identical.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  requires qemu-img
  IMG=$BATS_TEST_TMPDIR/sparse.img
  make_sparse_image "$IMG" 12
  start_qemu_nbd_tcp "$IMG"
}

@test "qemu-img convert of a running plain qemu-nbd is 10x faster after attach" {
  local plain boosted t round times=()
  time_command plain qemu_img_copy_tcp "$QEMU_TCP_PORT" "$BATS_TEST_TMPDIR/plain.img"
  cmp "$IMG" "$BATS_TEST_TMPDIR/plain.img"

  run "$SOCKBOOST" attach "$QEMU_TCP_PID"
  assert_success
  assert_line --regexp "^sockboost\[qemu-nbd $QEMU_TCP_PID\]: fd [0-9]+ tcp listening nodelay 0 -> 1\$"

  # The median of three: each copy is short, so a busy machine's hiccup
  # could weigh on a single one.
  for round in 1 2 3; do
    time_command t qemu_img_copy_tcp "$QEMU_TCP_PORT" "$BATS_TEST_TMPDIR/boosted.img"
    cmp "$IMG" "$BATS_TEST_TMPDIR/boosted.img"
    times+=("$t")
  done
  boosted=$(median_of "${times[@]}")
  echo "# plain $plain s, after attach ${times[*]} s (median $boosted)" >&3
  assert_tcp_gain "$plain" "$boosted" 10
}
