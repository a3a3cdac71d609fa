#!/usr/bin/env bats
# socketpair(AF_UNIX, SOCK_STREAM): both ends get the big send buffer.
# bats file_tags=sanitize

load helpers

setup () { requires ss; }

@test "without the library a socketpair keeps the default send buffer" {
  start_bg "$BATS_TEST_TMPDIR/out" "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' "$DEFAULT_TB" "$DEFAULT_TB")"
}

@test "with the library both ends of a socketpair have tb $BOOSTED_TB" {
  start_bg_boosted "$BATS_TEST_TMPDIR/out" "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' "$BOOSTED_TB" "$BOOSTED_TB")"
}

@test "SOCKBOOST_SNDBUF=1M gives tb 2097152; 0 and off leave the default" {
  start_bg_boosted "$BATS_TEST_TMPDIR/a" SOCKBOOST_SNDBUF=1M "$PRELOAD_SOCKETS" pair stream
  local a=$BG_PID
  start_bg_boosted "$BATS_TEST_TMPDIR/b" SOCKBOOST_SNDBUF=0 "$PRELOAD_SOCKETS" pair stream
  local b=$BG_PID
  start_bg_boosted "$BATS_TEST_TMPDIR/c" SOCKBOOST_SNDBUF=off "$PRELOAD_SOCKETS" pair stream
  local c=$BG_PID
  for f in a b c; do wait_for_line "$BATS_TEST_TMPDIR/$f" holding; done
  run unix_tbs_wait "$a" 2
  assert_output "$(printf '2097152\n2097152')"
  run unix_tbs_wait "$b" 2
  assert_output "$(printf '%s\n%s' "$DEFAULT_TB" "$DEFAULT_TB")"
  run unix_tbs_wait "$c" 2
  assert_output "$(printf '%s\n%s' "$DEFAULT_TB" "$DEFAULT_TB")"
}

@test "level 2 logs one line per tuned end" {
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_DEBUG=2 "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run grep -cE "^sockboost\[preload-sockets $BG_PID\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB -> $BOOSTED_TB\$" "$BATS_TEST_TMPDIR/out"
  assert_output 2
}
