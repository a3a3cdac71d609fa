#!/usr/bin/env bats
# A server that answers NBD_OPT_GO with ERR_UNSUP is reached through
# NBD_OPT_EXPORT_NAME instead.
# bats file_tags=sanitize

load helpers

@test "info says NBD_OPT_EXPORT_NAME and the size is right" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" no-go 4194304
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" disk)"
  assert_success
  assert_line "negotiation: NBD_OPT_EXPORT_NAME"
  assert_line "size: 4194304"
}

@test "verify over the fallback passes" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" no-go
  run cl_client verify "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" disk)"
  assert_success
}

@test "a server that speaks GO is not sent EXPORT_NAME" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_success
  assert_line "negotiation: NBD_OPT_GO"
}
