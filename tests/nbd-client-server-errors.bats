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

# The client must not close a connection with replies unread: that
# resets it under a server still writing them (nbdkit 1.32 has aborted
# on such a reset).  The fake server answers every request, so with 8 in
# flight, 7 replies are still owed when the first error arrives.
@test "after an error reply: the replies still owed are read, then DISC and a clean close" {
  local scenario
  for scenario in eio error-chunk; do
    rm -f "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/ended"
    FAKE_SERVER_LOG=$BATS_TEST_TMPDIR/ended \
      cl_start_fake_server "$BATS_TEST_TMPDIR/s" "$scenario"
    run cl_client --queue-depth 8 --request-size 64K read \
      "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
    assert_failure 1
    assert_output --regexp "^sbnbd-client: read at offset 0 \(65536 bytes\): server replied EIO"
    assert_equal "$(echo "$output" | wc -l)" 1
    wait_for_file "$BATS_TEST_TMPDIR/ended"
    assert_equal "$scenario: $(cat "$BATS_TEST_TMPDIR/ended")" "$scenario: disc eof"
  done
}

# The check above can fail: a client that leaves at once is seen.
@test "the fake server tells a reset from a clean close" {
  FAKE_SERVER_LOG=$BATS_TEST_TMPDIR/ended \
    cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  PYTHONPATH=$SB_ROOT/tests run python3 - "$BATS_TEST_TMPDIR/s" <<'PY'
import socket, struct, sys, time
import nbdproto as nbd
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
nbd.recv_exact(s, nbd.GREETING.size)
s.sendall(struct.pack(">I", nbd.NBD_FLAG_C_FIXED_NEWSTYLE | nbd.NBD_FLAG_C_NO_ZEROES)
          + nbd.OPTION.pack(nbd.NBD_IHAVEOPT, nbd.NBD_OPT_EXPORT_NAME, 0))
s.sendall(nbd.REQUEST.pack(nbd.NBD_REQUEST_MAGIC, 0, nbd.NBD_CMD_READ, 1, 0, 4096))
time.sleep(0.5)  # the export size and the READ reply arrive, unread
s.close()
PY
  assert_success
  wait_for_file "$BATS_TEST_TMPDIR/ended"
  assert_equal "$(cat "$BATS_TEST_TMPDIR/ended")" "reset"
}

@test "nbdkit's error filter: EIO on reads, ENOSPC on writes" {
  requires nbdkit
  # Reads go to a pattern export: a memory one is all holes, which the
  # client (asking for block status first) never reads.
  cl_start_nbdkit "$BATS_TEST_TMPDIR/p" --filter=error pattern 8M \
    error-pread=EIO error-pread-rate=100%
  cl_start_nbdkit "$BATS_TEST_TMPDIR/k" --filter=error memory 8M \
    error-pwrite=ENOSPC error-pwrite-rate=100%
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/p")"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: read at offset [0-9]+ \(2097152 bytes\): server replied EIO"
  run cl_client write zero "$(cl_unix_uri "$BATS_TEST_TMPDIR/k")"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: write at offset [0-9]+ \(2097152 bytes\): server replied ENOSPC"
}
