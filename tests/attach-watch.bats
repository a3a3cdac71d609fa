#!/usr/bin/env bats
# sockboost attach --watch follows a process: a connection it accepts
# later is tuned within about one interval, attach keeps none of its
# duplicates, and it stops when the process exits or on SIGTERM.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  build_static_echo
  SOCK=$BATS_TEST_TMPDIR/echo.sock
  start_echo_server "$SOCK"
}

# Run 'sockboost attach --watch -v' on the server in the background
# (without the test's fd 9); sets WATCH_PID.
start_watch () {
  "$SOCKBOOST" attach --watch -v "$@" "$ECHO_PID" \
    >"$BATS_TEST_TMPDIR/watch.out" 2>&1 9>&- &
  WATCH_PID=$!
  kill_at_teardown "$WATCH_PID"
  wait_for_line "$BATS_TEST_TMPDIR/watch.out" 'fd [0-9]+ unix listening'
}

@test "a connection accepted after attach is tuned within a second" {
  start_watch
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output ""
  start_echo_client "$SOCK" "$BATS_TEST_TMPDIR/out" 1
  # Within a second of the accept: ten intervals, for a busy machine.
  wait_for_unix_tb_ms "$ECHO_PID" "$BOOSTED_TB" 1000
  assert_equal "$(grep -c 'unix connected sndbuf' "$BATS_TEST_TMPDIR/watch.out")" 1
  # attach holds no socket of its own once it has tuned one.
  run find "/proc/$WATCH_PID/fd" -lname 'socket:*'
  assert_output ""
  echo hello >&9
  finish_echo_client
  assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" hello
}

@test "it stops by itself when the process exits, and reports its CPU use" {
  start_watch --interval 20
  kill "$ECHO_PID"
  timeout 10 tail --pid="$WATCH_PID" -f /dev/null
  wait "$WATCH_PID"
  run cat "$BATS_TEST_TMPDIR/watch.out"
  assert_line "sockboost attach: $ECHO_PID exited"
  assert_line --regexp "^sockboost attach: followed 1 process for [0-9.]+ s, changed 0 sockets, used [0-9.]+ s of CPU"
}

@test "SIGTERM ends it with status 0; the process goes on" {
  start_watch
  kill -TERM "$WATCH_PID"
  timeout 10 tail --pid="$WATCH_PID" -f /dev/null
  wait "$WATCH_PID"
  kill -0 "$ECHO_PID"
}
