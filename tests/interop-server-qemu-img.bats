#!/usr/bin/env bats
# qemu-img convert writes into sbnbd-server and compare finds it identical.
# bats file_tags=sanitize

load helpers

setup () {
  requires qemu-img
  SRC=$BATS_TEST_TMPDIR/src.img
  # Data with holes, so that qemu-img also sends zero requests.
  truncate -s 16M "$SRC"
  head -c 3M /dev/urandom | dd of="$SRC" bs=1M seek=2 conv=notrunc status=none
  head -c 1M /dev/urandom | dd of="$SRC" bs=1M seek=12 conv=notrunc status=none
}

@test "qemu-img convert into a memory export, then compare" {
  start_sbnbd_unix memory:16M
  run qemu-img convert -n -f raw -O raw "$SRC" "$NBD_URI"
  assert_success
  run qemu-img compare -f raw -F raw "$SRC" "$NBD_URI"
  assert_success
  assert_output --partial "Images are identical"
}

@test "qemu-img compare notices a difference" {
  start_sbnbd_unix pattern:16M
  run qemu-img compare -f raw -F raw "$SRC" "$NBD_URI"
  assert_failure
}

@test "qemu-img convert out of a file export over TCP" {
  cp "$SRC" "$BATS_TEST_TMPDIR/disk.img"
  start_sbnbd_tcp -r "$BATS_TEST_TMPDIR/disk.img"
  run qemu-img convert -f raw -O raw "$NBD_URI" "$BATS_TEST_TMPDIR/out.img"
  assert_success
  cmp "$SRC" "$BATS_TEST_TMPDIR/out.img"
}
