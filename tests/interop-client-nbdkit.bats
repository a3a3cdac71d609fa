#!/usr/bin/env bats
# sbnbd-client against nbdkit: what it reads is what nbdcopy reads, and
# what it writes nbdcopy reads back, with one connection or several.
# bats file_tags=sanitize

load helpers

setup () {
  requires nbdkit nbdcopy cmp
  URI=$(cl_unix_uri "$BATS_TEST_TMPDIR/s")
}

@test "read of nbdkit pattern matches nbdcopy's copy" {
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" pattern 64M
  nbdcopy "$URI" "$BATS_TEST_TMPDIR/ref"
  run cl_client read "$URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  cmp "$BATS_TEST_TMPDIR/ref" "$BATS_TEST_TMPDIR/out"
}

@test "read with 4 connections (4 connect calls) matches nbdcopy's copy" {
  requires strace
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" pattern 64M
  nbdcopy "$URI" "$BATS_TEST_TMPDIR/ref"
  # LeakSanitizer cannot run under ptrace.
  ASAN_OPTIONS=detect_leaks=0 run strace -f -e trace=connect -o "$BATS_TEST_TMPDIR/trace" \
    "$SBNBD_CLIENT" --connections 4 --request-size 256K --json read \
    "$URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  assert_output --partial '"connections": 4'
  run grep -c "connect(.*$BATS_TEST_TMPDIR/s.* = 0" "$BATS_TEST_TMPDIR/trace"
  assert_output 4
  cmp "$BATS_TEST_TMPDIR/ref" "$BATS_TEST_TMPDIR/out"
}

@test "write FILE to nbdkit memory reads back identically with nbdcopy" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 64M
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" memory 64M
  run cl_client --connections 3 --flush write "$BATS_TEST_TMPDIR/src" "$URI"
  assert_success
  nbdcopy "$URI" "$BATS_TEST_TMPDIR/back"
  cmp "$BATS_TEST_TMPDIR/src" "$BATS_TEST_TMPDIR/back"
}

@test "write pattern to nbdkit memory then verify passes; unwritten space fails" {
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" memory 8M
  run cl_client --length 6M write pattern "$URI"
  assert_success
  run cl_client --length 6M verify "$URI"
  assert_success
  run cl_client --request-size 1M --queue-depth 2 verify "$URI"
  assert_failure 1
  assert_output "sbnbd-client: verify: first mismatch at offset 6291456: expected 0x$(printf %02x $((1 + 6291456 % 251))), found 0x00"
}
