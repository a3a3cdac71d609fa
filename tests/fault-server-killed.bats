#!/usr/bin/env bats
# The server killed -9 mid-transfer: the client exits 1 promptly with one
# clear "sbnbd-client: ..." line, never hangs or crashes.
# bats file_tags=sanitize

load helpers

# Start CLIENT ARGS in the background against the server just started,
# let data flow, kill -9 the server, and leave the client's exit status
# in STATUS and its stderr in ERR.
kill_server_under_client () {
  local err=$BATS_TEST_TMPDIR/client.err pid threads
  threads=$(thread_count "$NBD_PID")
  timeout 60 "$SBNBD_CLIENT" "$@" 2> "$err" 3>&- &
  pid=$!
  kill_at_teardown "$pid"
  # A connection thread means the handshake is done; give data time to flow.
  wait_for_threads "$NBD_PID" $((threads + 1))
  sleep 0.3
  kill -9 "$NBD_PID"
  STATUS=0
  wait "$pid" || STATUS=$?
  ERR=$(cat "$err")
}

assert_clean_failure () {
  echo "status $STATUS, stderr: $ERR"
  [ "$STATUS" -eq 1 ]
  [ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ]
  [[ $ERR =~ ^sbnbd-client:\ [a-z].+ ]]
  [[ $ERR != *Sanitizer* ]]
}

@test "reading over a unix socket: exit 1 with one clear line" {
  start_sbnbd_unix pattern:64G
  kill_server_under_client -q read "$NBD_URI"
  assert_clean_failure
}

@test "writing 4 connections deep over TCP: exit 1 with one clear line" {
  # pattern: takes writes and drops them, so 64G needs no memory.
  start_sbnbd_tcp pattern:64G
  kill_server_under_client -q --connections 4 write pattern "$NBD_URI"
  assert_clean_failure
}

@test "verifying: exit 1 with one clear line, not a mismatch" {
  start_sbnbd_unix pattern:64G
  kill_server_under_client -q verify "$NBD_URI"
  assert_clean_failure
  [[ $ERR != *mismatch* ]]
}
