#!/usr/bin/env bats
# sbnbd-client against nbd-server (simple replies only): reads match the
# exported file, writes land in it, and an unknown export is named.
# bats file_tags=sanitize

load helpers

setup () {
  requires nbd-server cmp
  DISK=$BATS_TEST_TMPDIR/disk
  cl_random_file "$DISK" 12M
  URI=$(cl_unix_uri "$BATS_TEST_TMPDIR/s" disk)
}

@test "read from nbd-server matches the exported file" {
  cl_start_nbd_server "$BATS_TEST_TMPDIR/s" "$DISK" disk
  run cl_client --json read "$URI" "$BATS_TEST_TMPDIR/out"
  assert_success
  assert_output --partial '"structured_replies": false'
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
}

@test "write to nbd-server lands in the exported file" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 12M
  cl_start_nbd_server "$BATS_TEST_TMPDIR/s" "$DISK" disk
  run cl_client --request-size 512K --queue-depth 8 --flush \
    write "$BATS_TEST_TMPDIR/src" "$URI"
  assert_success
  cmp "$BATS_TEST_TMPDIR/src" "$DISK"
}

@test "an export nbd-server does not have is an error naming it" {
  cl_start_nbd_server "$BATS_TEST_TMPDIR/s" "$DISK" disk
  run "$SBNBD_CLIENT" read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" nosuch)"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: server refused export 'nosuch': "
}
