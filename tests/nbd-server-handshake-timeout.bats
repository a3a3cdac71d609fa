#!/usr/bin/env bats
# A handshake must end within --handshake-timeout (default 10 s): a total
# deadline that a client trickling one byte at a time cannot stretch.
# Transmission has no time limit: an idle client past its handshake stays.
# bats file_tags=sanitize

load helpers

@test "a slowloris handshake is cut at the limit" {
  start_sbnbd_unix -v --handshake-timeout 1 null:1M
  # One byte every 0.2 s would take 800 s to send its option.
  run "$SB_TESTS_DIR/server-abuse.py" slowloris "$NBD_SOCK" 0.2 15
  assert_success
  assert_output --regexp '^closed after [0-9.]+ s$'
  local tenths=${output//[^0-9]/}
  # Not before the limit (load can only make it later).
  [ "$tenths" -ge 10 ]
  run grep -c "connection 1: handshake not finished in 1 s: closed" "$NBD_LOG"
  assert_output 1
}

# Hold one connection at PHASE until the test ends (or $RELEASE).
hold_one () {
  READY=$BATS_TEST_TMPDIR/ready RELEASE=$BATS_TEST_TMPDIR/release
  HELD=$BATS_TEST_TMPDIR/held
  "$SB_TESTS_DIR/server-abuse.py" hold "$NBD_SOCK" 1 "$1" "$READY" \
    "$RELEASE" > "$HELD" 3>&- &
  HOLDER=$!
  cleanup_push "touch '$RELEASE'; wait $HOLDER"
  wait_for_file "$READY"
}

release () {
  touch "$RELEASE"
  wait "$HOLDER"
}

@test "a silent handshake is cut at the limit; good clients still served" {
  start_sbnbd_unix -v --handshake-timeout 1 pattern:1M
  hold_one greeting
  local deadline=$((SECONDS + 15))
  until grep -q "handshake not finished in 1 s: closed" "$NBD_LOG"; do
    [ $SECONDS -lt $deadline ] || fail "the handshake was never cut"
    sleep 0.05
  done
  release
  assert_equal "$(cat "$HELD")" "closed: 0"
  run timeout 20 "$SBNBD_CLIENT" verify "$NBD_URI"
  assert_success
}

@test "a client idle past its handshake is not cut" {
  start_sbnbd_unix -v --handshake-timeout 1 pattern:1M
  hold_one transmission
  # Well past the limit.
  sleep 3
  release
  assert_equal "$(cat "$HELD")" "closed:"
  run grep -c "handshake not finished" "$NBD_LOG"
  assert_output 0
}
