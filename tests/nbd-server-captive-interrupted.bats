#!/usr/bin/env bats
# --run CMD interrupted: Ctrl-C at a terminal reaches the server and the
# command; the server keeps serving the command while it winds down and
# exits 128+N, never 0, so that 'sbnbd-server --run ... && next' does
# not go on.  A signal to the server alone ends it after a grace (or at
# a second signal), the command left running.
# bats file_tags=sanitize

load helpers

setup () {
  STARTED=$BATS_TEST_TMPDIR/started
  TERMINAL=$BATS_TEST_TMPDIR/terminal
}

# Ctrl-C at the server running CMD; prints the status a shell would see.
ctrl_c () {
  "$SB_TESTS_DIR/pty-interrupt.py" "$STARTED" "$TERMINAL" \
    "$SBNBD_SERVER" --run "$1" "$2"
}

@test "Ctrl-C during sbnbd-client read: the client ends cleanly, 130" {
  # The data read is the marker: Ctrl-C comes once it flows, when the
  # client catches SIGINT (small requests, so that little is written).
  run ctrl_c "exec '$SBNBD_CLIENT' read --request-size 4K --queue-depth 1 \
    \"\$uri\" '$STARTED'" pattern:1T
  assert_success
  assert_output 130
  # The client's requests in flight were served: it reports the
  # interruption, not a lost server.
  run cat "$TERMINAL"
  assert_output --regexp "sbnbd-client: read interrupted by SIGINT after [0-9]+ of 1099511627776 bytes"
  refute_output --partial "sbnbd-server"
}

@test "Ctrl-C: a command that exits 0 on SIGINT still gives 130" {
  run ctrl_c "trap 'exit 0' INT; echo started > '$STARTED'
    while :; do sleep 0.05; done" null:1M
  assert_success
  assert_output 130
}

@test "Ctrl-C: a command killed by it gives 130" {
  run ctrl_c "echo started > '$STARTED'; sleep 30" null:1M
  assert_success
  assert_output 130
}

# The server alone gets SIGTERM; the command runs until told to stop.
start_captive () {
  local stop=$BATS_TEST_TMPDIR/stop
  "$SBNBD_SERVER" -v --run "echo started > '$STARTED'
    while [ ! -e '$stop' ]; do sleep 0.05; done; echo command-ended" \
    null:1M > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/log" 3>&- &
  SERVER_PID=$!
  cleanup_push "sbnbd_stop $SERVER_PID; stop_command"
  wait_for_file "$STARTED"
}

# Tell the command to end, and wait (bounded) until it has: bats removes
# the directory holding the stop file right after the test.
stop_command () {
  touch "$BATS_TEST_TMPDIR/stop"
  wait_for_file "$BATS_TEST_TMPDIR/out"
}

@test "SIGTERM to the server alone: 143 after the grace, command left alone" {
  start_captive
  local start=$SECONDS status=0
  kill -TERM "$SERVER_PID"
  wait_until_exited "$SERVER_PID" 20
  wait "$SERVER_PID" || status=$?
  assert_equal "$status" 143
  # It served the command for the grace (5 s, see sbnbd-server(1)).
  [ $((SECONDS - start)) -ge 4 ]
  run cat "$BATS_TEST_TMPDIR/log"
  assert_output --partial "serving the command for at most 5 s more"
  # The command was not signalled: it is still running, and ends when
  # told to.
  [ ! -s "$BATS_TEST_TMPDIR/out" ]
  stop_command
  assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" command-ended
}

@test "a second signal ends the grace at once" {
  start_captive
  local status=0
  kill -TERM "$SERVER_PID"
  # The first signal is read before the second is sent (-v says so).
  wait_for_grep "serving the command" "$BATS_TEST_TMPDIR/log"
  kill -INT "$SERVER_PID"
  wait_until_exited "$SERVER_PID" 4
  wait "$SERVER_PID" || status=$?
  assert_equal "$status" 143
}

# Wait up to SECONDS for PID to exit; fail if it does not.
wait_until_exited () {
  local deadline=$((SECONDS + $2))
  while sbnbd_alive "$1"; do
    [ $SECONDS -lt $deadline ] || fail "process $1 still running after $2 s"
    sleep 0.02
  done
}

# Wait up to 10 s for a line matching PATTERN in FILE.
wait_for_grep () {
  local deadline=$((SECONDS + 10))
  until grep -q "$1" "$2"; do
    [ $SECONDS -lt $deadline ] || fail "no '$1' in $2"
    sleep 0.02
  done
}
