#!/usr/bin/env bats
# --max-connections N: with N clients past their handshakes, the N+1th
# is closed at once, before the greeting; the others are unaffected and
# a freed slot serves again.  (Clients still in their handshake make room
# instead: nbd-server-idle-handshakes.)
# bats file_tags=sanitize

load helpers

@test "--max-connections 2: a third client is refused, others keep working" {
  requires nbdinfo
  start_sbnbd_unix -v --max-connections 2 null:1M
  local ready=$BATS_TEST_TMPDIR/ready release=$BATS_TEST_TMPDIR/release
  "$SB_TESTS_DIR/server-abuse.py" hold "$NBD_SOCK" 2 transmission "$ready" \
    "$release" > "$BATS_TEST_TMPDIR/held" 3>&- &
  local holder=$!
  cleanup_push "touch '$release'; wait $holder"
  wait_for_file "$ready"
  run timeout 10 nbdinfo --size "$NBD_URI"
  assert_failure
  run grep -c "refused: 2 connections open past their handshakes" "$NBD_LOG"
  assert_output 1
  touch "$release"
  wait "$holder"
  # Neither held client was closed to make room.
  assert_equal "$(cat "$BATS_TEST_TMPDIR/held")" "closed:"
  # The slots free up as the holders leave (bounded wait for the server
  # to notice).
  local deadline=$((SECONDS + 10))
  until timeout 10 nbdinfo --size "$NBD_URI" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "slots never freed"
    sleep 0.05
  done
}
