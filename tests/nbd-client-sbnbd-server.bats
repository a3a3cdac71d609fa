#!/usr/bin/env bats
# sbnbd-client with its own server: verify passes on pattern:, what is
# written to memory: reads back, over unix and TCP, with several
# connections.
# bats file_tags=sanitize

load helpers

@test "verify of pattern:64M passes, at queue depth 1 and 8" {
  start_sbnbd_unix -r pattern:64M
  run cl_client --queue-depth 1 verify "$NBD_URI"
  assert_success
  run cl_client --queue-depth 8 --request-size 1M verify "$NBD_URI"
  assert_success
}

@test "verify of memory: (all zeroes) fails at offset 0" {
  start_sbnbd_unix memory:4M
  run cl_client verify "$NBD_URI"
  assert_failure 1
  assert_output "sbnbd-client: verify: first mismatch at offset 0: expected 0x01, found 0x00"
}

@test "write FILE to memory: reads back identically (unix, 3 connections)" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 24M
  start_sbnbd_unix memory:24M
  run cl_client --connections 3 --flush write "$BATS_TEST_TMPDIR/src" "$NBD_URI"
  assert_success
  run cl_client --connections 3 read "$NBD_URI" "$BATS_TEST_TMPDIR/back"
  assert_success
  cmp "$BATS_TEST_TMPDIR/src" "$BATS_TEST_TMPDIR/back"
}

@test "write pattern to memory: over TCP with split writes, then verify" {
  start_sbnbd_tcp memory:16M
  run cl_client --split-writes --no-nodelay --request-size 256K write pattern "$NBD_URI"
  assert_success
  run cl_client verify "$NBD_URI"
  assert_success
}
