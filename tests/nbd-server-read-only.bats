#!/usr/bin/env bats
# -r: the export says read-only, writes are refused and nothing changes,
# and the file is opened read-only (a 0444 file can be served).
# bats file_tags=sanitize

load helpers

setup () {
  requires qemu-io nbdcopy cmp
  IMG=$BATS_TEST_TMPDIR/disk.img
  head -c 2M /dev/urandom > "$IMG"
  cp "$IMG" "$BATS_TEST_TMPDIR/orig.img"
  chmod 0444 "$IMG"
}

@test "a read-only file export refuses writes and stays unchanged" {
  start_sbnbd_unix -r "$IMG"
  run qemu-io -f raw -c "write -P 0x11 0 64K" "$NBD_URI"
  refute_output --partial "wrote 65536"
  run nbdcopy "$BATS_TEST_TMPDIR/orig.img" "$NBD_URI"
  assert_failure
  cmp "$IMG" "$BATS_TEST_TMPDIR/orig.img"
  run nbdcopy "$NBD_URI" "$BATS_TEST_TMPDIR/back.img"
  assert_success
  cmp "$IMG" "$BATS_TEST_TMPDIR/back.img"
}

@test "-r opens the file O_RDONLY, without -r O_RDWR" {
  requires strace
  strace -qq -e trace=openat -o "$BATS_TEST_TMPDIR/ro.log" \
    "$SBNBD_SERVER" -r --run true "$IMG"
  run grep -F "\"$IMG\"" "$BATS_TEST_TMPDIR/ro.log"
  assert_output --partial "O_RDONLY|O_CLOEXEC"
  chmod 0644 "$IMG"
  strace -qq -e trace=openat -o "$BATS_TEST_TMPDIR/rw.log" \
    "$SBNBD_SERVER" --run true "$IMG"
  run grep -F "\"$IMG\"" "$BATS_TEST_TMPDIR/rw.log"
  assert_output --partial "O_RDWR|O_CLOEXEC"
}
