#!/usr/bin/env bats
# A server that dies or hangs up mid-transfer makes the client exit 1 with
# a message saying so, promptly.
# bats file_tags=sanitize

load helpers

@test "nbdkit killed (SIGKILL) during a read" {
  requires nbdkit
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" --filter=delay pattern 1G rdelay=20ms
  local server=$!
  cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" 2> "$BATS_TEST_TMPDIR/err" &
  local client=$!
  cl_wait_for_connection "$server"
  sleep 0.3
  kill -9 "$server"
  local rc=0
  wait "$client" || rc=$?
  [ "$rc" -eq 1 ]
  run cat "$BATS_TEST_TMPDIR/err"
  assert_output --regexp "^sbnbd-client: (server closed the connection with [0-9]+ requests? in flight|server disconnected in the middle of a reply)$"
}

@test "qemu-nbd killed (SIGKILL) during a write" {
  requires qemu-nbd
  truncate -s 2G "$BATS_TEST_TMPDIR/disk"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/disk"
  local server=$!
  cl_client --request-size 4K --queue-depth 1 write pattern \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" 2> "$BATS_TEST_TMPDIR/err" &
  local client=$!
  cl_wait_for_connection "$server"
  sleep 0.3
  kill -9 "$server"
  local rc=0
  wait "$client" || rc=$?
  [ "$rc" -eq 1 ]
  run cat "$BATS_TEST_TMPDIR/err"
  assert_output --regexp "^sbnbd-client: (server closed the connection with 1 request in flight|server disconnected in the middle of a reply|sending request at offset [0-9]+: (Broken pipe|Connection reset by peer))$"
}

@test "a reply cut off in its data" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" cut
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_failure 1
  assert_output "sbnbd-client: server disconnected in the middle of a reply"
}
