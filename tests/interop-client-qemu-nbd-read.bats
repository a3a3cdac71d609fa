#!/usr/bin/env bats
# sbnbd-client read returns exactly the bytes qemu-nbd serves, over a unix
# socket and over TCP, to a file, to stdout, and across holes.
# bats file_tags=sanitize

load helpers

setup () {
  requires qemu-nbd cmp
  DISK=$BATS_TEST_TMPDIR/disk
  # Data, then a hole qemu-nbd answers with OFFSET_HOLE chunks, then data,
  # with sizes that straddle request boundaries.
  truncate -s 24M "$DISK"
  cl_random_file "$BATS_TEST_TMPDIR/a" 5M
  cl_random_file "$BATS_TEST_TMPDIR/b" 3M
  dd if="$BATS_TEST_TMPDIR/a" of="$DISK" bs=1M conv=notrunc status=none
  dd if="$BATS_TEST_TMPDIR/b" of="$DISK" bs=1M seek=17 conv=notrunc status=none
}

@test "read over a unix socket to a file matches the disk" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK" -r
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
}

@test "read with 1M requests at queue depth 8 reuses buffers across holes" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK" -r
  run cl_client --request-size 1M --queue-depth 8 read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
}

@test "read over TCP to stdout matches the disk" {
  cl_start_qemu_nbd_tcp "$DISK" -r
  cl_client -q read "nbd://127.0.0.1:$QEMU_PORT/" - > "$BATS_TEST_TMPDIR/out"
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
}

@test "read with simple replies only (--no-structured) matches the disk" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK" -r
  run cl_client --no-structured --json read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" "$BATS_TEST_TMPDIR/out"
  assert_success
  assert_output --partial '"structured_replies": false'
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
}

@test "--offset and --length read a slice" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK" -r
  run cl_client --offset 3M --length 15M read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" "$BATS_TEST_TMPDIR/out"
  assert_success
  dd if="$DISK" of="$BATS_TEST_TMPDIR/ref" bs=1M skip=3 count=15 status=none
  cmp "$BATS_TEST_TMPDIR/ref" "$BATS_TEST_TMPDIR/out"
}
