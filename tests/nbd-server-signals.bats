#!/usr/bin/env bats
# SIGTERM and SIGINT end the server cleanly: status 0, socket and pidfile
# removed.
# bats file_tags=sanitize

load helpers

@test "SIGTERM: exit 0, socket and pidfile removed" {
  start_sbnbd_unix pattern:1M
  [ -S "$NBD_SOCK" ]
  [ -s "$NBD_PIDFILE" ]
  [ "$(cat "$NBD_PIDFILE")" = "$NBD_PID" ]
  local status=0
  sbnbd_stop "$NBD_PID" || status=$?
  [ "$status" -eq 0 ]
  [ ! -e "$NBD_SOCK" ]
  [ ! -e "$NBD_PIDFILE" ]
}

@test "SIGINT with a client connected: exit 0, socket removed" {
  start_sbnbd_unix memory:1M
  # A client that stays connected (greeting read) while the signal arrives.
  python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(18)
print("connected", flush=True); time.sleep(30)' "$NBD_SOCK" \
    > "$BATS_TEST_TMPDIR/client.out" 3>&- &
  cleanup_push "kill $! 2>/dev/null"
  wait_for_file "$BATS_TEST_TMPDIR/client.out"
  kill -INT "$NBD_PID"
  local status=0 deadline=$((SECONDS + 10))
  while sbnbd_alive "$NBD_PID" && [ $SECONDS -lt $deadline ]; do sleep 0.02; done
  wait "$NBD_PID" || status=$?
  [ "$status" -eq 0 ]
  [ ! -e "$NBD_SOCK" ]
  [ ! -e "$NBD_PIDFILE" ]
}

@test "a socket path that exists already is not removed or reused" {
  touch "$BATS_TEST_TMPDIR/taken"
  run "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/taken" null:1M
  assert_failure 1
  assert_output --partial "sbnbd-server: $BATS_TEST_TMPDIR/taken:"
  [ -f "$BATS_TEST_TMPDIR/taken" ]
}
