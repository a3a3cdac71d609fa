#!/usr/bin/env bats
# NBD_CMD_BLOCK_STATUS for base:allocation on every backend, over
# structured replies and over extended headers: memory: reports the pages
# written (trim and zero give them back as holes), null: one hole that
# reads as zero, pattern: all data, a file its SEEK_DATA/SEEK_HOLE layout.
# REQ_ONE gives one extent; extents never reach past the request; zero
# lengths and ranges past the end get EINVAL.  Reads send the holes as
# OFFSET_HOLE chunks; DF gives one data chunk.
# bats file_tags=sanitize

load helpers

STATUS=$BATS_TEST_DIRNAME/nbd-status.py

setup () { requires python3; }

scenario () {
  run timeout 60 python3 "$STATUS" "$NBD_SOCK" "$1"
  [ "$status" -eq 0 ] || { echo "$output"; cat "$NBD_LOG"; false; }
}

# 8 MiB, data at [1M, 1M+64K) and [3M, 3M+4K): what block-status-file wants.
make_sparse_file () {
  truncate -s 8M "$1"
  printf '\x5a%.0s' $(seq 65536) | dd of="$1" bs=64K seek=16 conv=notrunc status=none
  printf '\x5a%.0s' $(seq 4096) | dd of="$1" bs=4K seek=768 conv=notrunc status=none
}

@test "memory: written pages are data, the rest and trimmed pages holes" {
  start_sbnbd_unix memory:64M
  scenario block-status-memory
}
@test "memory: over extended headers" {
  start_sbnbd_unix memory:64M
  scenario block-status-memory-extended
}
@test "null: one hole that reads as zeroes" {
  start_sbnbd_unix null:1G
  scenario block-status-null
  scenario block-status-null-extended
}
@test "pattern: all data" {
  start_sbnbd_unix pattern:1G
  scenario block-status-pattern
  scenario block-status-pattern-extended
}
@test "file: the holes SEEK_HOLE finds" {
  make_sparse_file "$BATS_TEST_TMPDIR/disk"
  start_sbnbd_unix "$BATS_TEST_TMPDIR/disk"
  scenario block-status-file
  scenario block-status-file-extended
}
@test "file: a trimmed range is a hole again, though reads had found it data" {
  make_sparse_file "$BATS_TEST_TMPDIR/disk"
  start_sbnbd_unix "$BATS_TEST_TMPDIR/disk"
  scenario block-status-file-trim
}
@test "the file scenario can fail: a fully allocated file is not that layout" {
  head -c 8M /dev/zero > "$BATS_TEST_TMPDIR/disk"
  start_sbnbd_unix "$BATS_TEST_TMPDIR/disk"
  run timeout 60 python3 "$STATUS" "$NBD_SOCK" block-status-file
  assert_failure
  assert_output --partial "block status 0+8388608"
}
