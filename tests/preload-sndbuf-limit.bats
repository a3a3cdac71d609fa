#!/usr/bin/env bats
# SOCKBOOST_SNDBUF takes up to 1G, as documented: 1G is accepted (the
# kernel, which doubles requests into an int, grants 2147483646, the most
# there is); anything above gets one warning and the default.
# bats file_tags=sanitize

load helpers

setup () { requires ss; }

@test "SOCKBOOST_SNDBUF=1G: no warning, tb 2147483646 with CAP_NET_ADMIN" {
  skip_unless_cap_net_admin
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_SNDBUF=1G "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '2147483646\n2147483646')"
  run grep -c sockboost "$BATS_TEST_TMPDIR/out"
  assert_output 0
}

@test "SOCKBOOST_SNDBUF=1024M is the same as 1G" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=1024M SOCKBOOST_DEBUG=2 true
  assert_success
  assert_output --regexp ': settings: sndbuf 1073741824, '
}

@test "above 1G: one warning naming the limit, the default used" {
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_SNDBUF=1025M "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run grep -c "ignoring SOCKBOOST_SNDBUF='1025M': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off; using the default" "$BATS_TEST_TMPDIR/out"
  assert_output 1
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' "$BOOSTED_TB" "$BOOSTED_TB")"
}
