#!/usr/bin/env bats
# AF_UNIX stream sockets are tuned on the connecting side and on the
# accepting side (accept and accept4), each in its own process.
# bats file_tags=sanitize

load helpers

setup () {
  requires ss
  SOCK=$BATS_TEST_TMPDIR/s.sock
}

# Server (accept or accept4) and client, each boosted or not ("yes"/"no").
pair_up () {
  local how=$1 srv=$2 cli=$3
  if [ "$srv" = yes ]; then
    start_bg_boosted "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" unix-server "$SOCK" "$how"
  else
    start_bg "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" unix-server "$SOCK" "$how"
  fi
  SRV=$BG_PID
  wait_for_line "$BATS_TEST_TMPDIR/srv" listening
  if [ "$cli" = yes ]; then
    start_bg_boosted "$BATS_TEST_TMPDIR/cli" "$PRELOAD_SOCKETS" unix-client "$SOCK"
  else
    start_bg "$BATS_TEST_TMPDIR/cli" "$PRELOAD_SOCKETS" unix-client "$SOCK"
  fi
  CLI=$BG_PID
  wait_for_line "$BATS_TEST_TMPDIR/srv" holding
  wait_for_line "$BATS_TEST_TMPDIR/cli" holding
}

@test "connect side: only the boosted client's socket grows" {
  pair_up accept no yes
  run unix_tbs_wait "$CLI" 1
  assert_output "$BOOSTED_TB"
  # The server's accepted socket keeps the default (ss lists no listeners).
  run unix_tbs_wait "$SRV" 1
  assert_output "$DEFAULT_TB"
}

@test "accept side: the accepted socket grows" {
  pair_up accept yes no
  run unix_tbs_wait "$SRV" 1
  assert_output "$BOOSTED_TB"
  run unix_tbs_wait "$CLI" 1
  assert_output "$DEFAULT_TB"
}

@test "accept4 side: the accepted socket grows" {
  pair_up accept4 yes no
  run unix_tbs_wait "$SRV" 1
  assert_output "$BOOSTED_TB"
  run grep -E "^accept4 fd [0-9]+ sndbuf $BOOSTED_TB\$" "$BATS_TEST_TMPDIR/srv"
  assert_success
}

@test "without the library neither side grows" {
  pair_up accept4 no no
  run unix_tbs_wait "$SRV" 1
  assert_output "$DEFAULT_TB"
  run unix_tbs_wait "$CLI" 1
  assert_output "$DEFAULT_TB"
}
