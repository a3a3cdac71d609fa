#!/usr/bin/env bats
# sbnbd-client read asks for block status first and reads only the data:
# a regular output file keeps the holes (du), stdout gets their zeroes,
# and the bytes are the export's either way; without structured replies
# everything is read.
# bats file_tags=sanitize

load helpers

setup () {
  requires python3 cmp
  DISK=$BATS_TEST_TMPDIR/disk
  truncate -s 256M "$DISK"
  for mib in 3 100 255; do
    head -c 1M /dev/urandom | dd of="$DISK" bs=1M seek=$mib conv=notrunc status=none
  done
  start_sbnbd_unix -r "$DISK"
}

kib () { du -k "$1" | cut -f1; }

@test "to a file: only the 3 MiB of data is read, the holes stay holes" {
  run cl_client --json read "$NBD_URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
  [ "$(kib "$BATS_TEST_TMPDIR/out")" -le 4096 ]
  # 3 data extents of 1 MiB, 2 MiB requests: one READ each.
  assert_output --partial '"requests": 3,'
  assert_output --partial "\"hole_bytes\": $((253 << 20))"
  assert_output --partial "\"bytes\": $((256 << 20))"
}

@test "to stdout: the holes come as zeroes, in order" {
  cl_client -q read "$NBD_URI" - | cmp - "$DISK"
}

@test "several connections share the data extents" {
  run cl_client --connections 3 --request-size 256K read "$NBD_URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
  assert_output --partial "12 requests, 3 connections"
}

@test "--no-structured: no block status, every byte read and written" {
  run cl_client --no-structured read "$NBD_URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
  [ "$(kib "$BATS_TEST_TMPDIR/out")" -ge $((256 * 1024)) ]
  assert_output --partial "128 requests"
}
