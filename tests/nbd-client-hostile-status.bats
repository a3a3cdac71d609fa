#!/usr/bin/env bats
# A server whose block status replies break the protocol gets a protocol
# error and exit 1 from map and from read (which maps first), never a
# crash (run under ASan and valgrind with the sanitize tag).
# bats file_tags=sanitize

load helpers

hostile () {
  local cmd
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" "$1"
  for cmd in map read; do
    run cl_client "$cmd" "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
    assert_failure 1
    assert_output --regexp "^sbnbd-client: protocol error: $2"
  done
}

@test "the fake server's good block status: map and read work" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" status-good
  run cl_client map "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_success
  assert_output "         0     8388608    0  data"
  run cl_client verify "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_success
}

@test "a descriptor of length 0" {
  hostile status-zero-length "block status descriptor of length 0 at offset 0"
}

@test "a descriptor after one that covered the request" {
  hostile status-past-request "block status descriptor past the requested range"
}

@test "block status for a context never selected" {
  hostile status-wrong-context "block status for context 99"
}

@test "a simple reply to a block status" {
  hostile status-simple "simple reply to a block status request"
}

@test "a block status chunk whose length is not 4 + 8n" {
  hostile status-bad-length "block status chunk type 5 of 11 bytes"
}
