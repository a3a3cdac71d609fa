#!/usr/bin/env bats
# An error reply from the server stops the client with exit 1 and a
# message naming the request, the NBD errno and the server's own words.
# bats file_tags=sanitize

load helpers

@test "a simple reply with EIO is reported as EIO" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" eio
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_failure 1
  assert_output "sbnbd-client: read at offset 0 (2097152 bytes): server replied EIO (input/output error)"
}

@test "a structured ERROR chunk is reported with its message" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" error-chunk
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_failure 1
  assert_output "sbnbd-client: read at offset 0 (2097152 bytes): server replied EIO (input/output error): disk on fire"
}

@test "nbdkit's error filter: EIO on reads, ENOSPC on writes" {
  requires nbdkit
  cl_start_nbdkit "$BATS_TEST_TMPDIR/k" --filter=error memory 8M \
    error-pread=EIO error-pread-rate=100% error-pwrite=ENOSPC error-pwrite-rate=100%
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/k")"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: read at offset [0-9]+ \(2097152 bytes\): server replied EIO"
  run cl_client write zero "$(cl_unix_uri "$BATS_TEST_TMPDIR/k")"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: write at offset [0-9]+ \(2097152 bytes\): server replied ENOSPC"
}
