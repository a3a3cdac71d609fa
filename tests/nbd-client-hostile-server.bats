#!/usr/bin/env bats
# A server that breaks the protocol gets a protocol error and exit 1, never
# a crash or a write outside the client's buffers (run under ASan and
# valgrind with the sanitize tag).
# bats file_tags=sanitize

load helpers

hostile () {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" "$1"
  run cl_client --request-size 1M verify \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: protocol error: $2"
}

@test "a data chunk longer than the request" {
  hostile oversize "chunk 0\+1048676 is outside the request 0\+1048576"
}

@test "a data chunk before the request's offset" {
  hostile bad-offset "chunk .* is outside the request"
}

@test "the same data twice" {
  hostile overlap "chunks overlap"
}

@test "DONE before all the data" {
  hostile short "server sent 524288 of 1048576 bytes"
}

@test "a cookie that was never sent" {
  hostile bad-cookie "reply for unknown cookie"
}

@test "a wrong reply magic" {
  hostile bad-magic "bad reply magic 0x12345678"
}

@test "an error chunk claiming 2 GiB" {
  hostile huge-error "error chunk of 2147483648 bytes"
}
