#!/usr/bin/env bats
# Connections that never finish their handshake cannot keep a good client
# out: when the server is full, a new client closes the oldest connection
# still in its handshake.  (Connections past it are never closed:
# nbd-server-max-connections.)
# bats file_tags=sanitize

load helpers

setup () {
  READY=$BATS_TEST_TMPDIR/ready
  RELEASE=$BATS_TEST_TMPDIR/release
  cleanup_push "touch '$RELEASE'"
}

# Hold COUNT connections at PHASE (tests/server-abuse.py hold) in the
# background until $RELEASE appears; what they saw goes to $HELD.
hold () {
  HELD=$BATS_TEST_TMPDIR/held
  "$SB_TESTS_DIR/server-abuse.py" hold "$NBD_SOCK" "$1" "$2" "$READY" \
    "$RELEASE" > "$HELD" 3>&- &
  HOLDER=$!
  kill_at_teardown "$HOLDER"
  wait_for_file "$READY" 30
}

# Release the held connections; wait for the holder's report.
release () {
  touch "$RELEASE"
  wait "$HOLDER"
}

@test "default limits: a good client is served while 130 connections idle in the handshake" {
  start_sbnbd_unix pattern:1M
  hold 130 greeting
  run timeout 20 "$SBNBD_CLIENT" verify "$NBD_URI"
  assert_success
  release
  # 128 at most: the holder's 129th and 130th closed the two oldest, the
  # good client the third (more, and still the oldest, if the 10 s limit
  # passed first on a slow machine, as under valgrind).
  assert_oldest_closed 3
}

# The connections $HELD says were closed are the oldest ones, at least N.
assert_oldest_closed () {
  local closed=($(cat "$HELD")) i
  [ "${closed[0]}" = closed: ] || fail "holder said: ${closed[*]}"
  [ $((${#closed[@]} - 1)) -ge "$1" ] || fail "fewer than $1 closed: ${closed[*]}"
  for ((i = 1; i < ${#closed[@]}; i++)); do
    [ "${closed[i]}" = $((i - 1)) ] || fail "not the oldest closed: ${closed[*]}"
  done
}

@test "at the limit the oldest handshake is closed, with a log line" {
  start_sbnbd_unix -v --max-connections 4 pattern:1M
  hold 4 greeting
  run timeout 20 "$SBNBD_CLIENT" verify "$NBD_URI"
  assert_success
  release
  assert_equal "$(cat "$HELD")" "closed: 0"
  run grep -c "connection 1: closed in its handshake to make room for connection 5 (4 connections open)" "$NBD_LOG"
  assert_output 1
}
