#!/usr/bin/env bats
# `read URI - | head -c 10`: when the reader of stdout goes away the
# client ends quietly, as cat does (killed by SIGPIPE, no message), after
# disconnecting from the server in good order.
# bats file_tags=sanitize

load helpers

@test "read - into a pipe closed early: no message, SIGPIPE, clean disconnect" {
  start_sbnbd_unix -v pattern:256M
  run bash -c '"$1" read "$2" - 2> "$3" | head -c 10 | od -An -tx1
               echo "status ${PIPESTATUS[0]}"' _ "$SBNBD_CLIENT" "$NBD_URI" \
    "$BATS_TEST_TMPDIR/client.err"
  assert_success
  assert_line -n 0 " 01 02 03 04 05 06 07 08 09 0a"
  assert_line -n 1 "status $((128 + $(kill -l PIPE)))"
  [ ! -s "$BATS_TEST_TMPDIR/client.err" ] || fail "$(cat "$BATS_TEST_TMPDIR/client.err")"
  # The server saw NBD_CMD_DISC, not a connection torn down mid-reply.
  wait_for_line "$NBD_LOG" "client sent NBD_CMD_DISC"
  refute grep -q "without NBD_CMD_DISC\|reading a request" "$NBD_LOG"
}

@test "an error writing stdout that is not a closed pipe is still reported" {
  start_sbnbd_unix pattern:1M
  run bash -c '"$1" read "$2" - > /dev/full' _ "$SBNBD_CLIENT" "$NBD_URI"
  assert_failure 1
  assert_output "sbnbd-client: writing stdout: No space left on device"
}
