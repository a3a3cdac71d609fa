#!/usr/bin/env bats
# A malformed setting gets exactly one warning naming the variable and its
# value; the default is used and the program runs normally.
# bats file_tags=sanitize

load helpers

setup () { requires ss; }

@test "bad SOCKBOOST_SNDBUF values: one warning each, default 2M used" {
  for v in abc -5 99999999999999 2Q; do
    start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_SNDBUF="$v" "$PRELOAD_SOCKETS" pair stream
    wait_for_line "$BATS_TEST_TMPDIR/out" holding
    run grep -c "ignoring SOCKBOOST_SNDBUF='$v'" "$BATS_TEST_TMPDIR/out"
    assert_output 1
    run grep -c sockboost "$BATS_TEST_TMPDIR/out"
    assert_output 1
    run unix_tbs_wait "$BG_PID" 2
    assert_output "$(printf '%s\n%s' "$BOOSTED_TB" "$BOOSTED_TB")"
    kill "$BG_PID"; wait "$BG_PID" 2>/dev/null || true
  done
}

@test "other bad values: one warning per variable, the program runs" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_FORCE=maybe SOCKBOOST_NODELAY=2 \
    SOCKBOOST_CORK=yes SOCKBOOST_SCOPE=some SOCKBOOST_DEBUG=9 SOCKBOOST_STATS=x \
    sh -c 'echo ran'
  assert_success
  assert_line ran
  local log=$output
  for var in FORCE=maybe NODELAY=2 CORK=yes SCOPE=some DEBUG=9 STATS=x; do
    run grep -c "ignoring SOCKBOOST_${var%%=*}='${var#*=}': expected" <<< "$log"
    assert_output 1
  done
}

@test "good values print nothing" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=4M SOCKBOOST_FORCE=off \
    SOCKBOOST_NODELAY=0 SOCKBOOST_CORK=off SOCKBOOST_SCOPE=nbd SOCKBOOST_DEBUG=1 \
    sh -c 'echo ran'
  assert_output ran
}

@test "the warning comes when the library is loaded, before main" {
  # sleep makes no socket call: the line is there while it still sleeps.
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_SNDBUF=3X sleep 30
  wait_for_line "$BATS_TEST_TMPDIR/out" "^sockboost\[sleep [0-9]+\]: ignoring SOCKBOOST_SNDBUF='3X': expected " 10
  kill -0 "$BG_PID"
}
