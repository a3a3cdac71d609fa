#!/usr/bin/env bats
# A send buffer the program already made larger is never lowered.
# bats file_tags=sanitize

load helpers

setup () {
  requires ss
  SOCK=$BATS_TEST_TMPDIR/s.sock
  start_bg "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" unix-server "$SOCK" accept
  wait_for_line "$BATS_TEST_TMPDIR/srv" listening
}

@test "a program's own 8 MiB buffer stays 8 MiB under the library" {
  # 4 MiB asked before connect: the kernel grants 8 MiB (wmem_max permitting).
  start_bg_boosted "$BATS_TEST_TMPDIR/cli" SOCKBOOST_DEBUG=3 \
    "$PRELOAD_SOCKETS" unix-client "$SOCK" presize 4194304
  wait_for_line "$BATS_TEST_TMPDIR/cli" holding
  want=$((2 * $(cat /proc/sys/net/core/wmem_max)))
  [ "$want" -gt 8388608 ] && want=8388608
  [ "$want" -gt "$BOOSTED_TB" ] || skip "net.core.wmem_max is too small to preset a buffer above the library's"
  run unix_tbs_wait "$BG_PID" 1
  assert_output "$want"
  run grep -E "unix connect sndbuf $want left alone" "$BATS_TEST_TMPDIR/cli"
  assert_success
}

@test "a program's small buffer is raised (the check above can fail)" {
  start_bg_boosted "$BATS_TEST_TMPDIR/cli" "$PRELOAD_SOCKETS" unix-client "$SOCK" presize 65536
  wait_for_line "$BATS_TEST_TMPDIR/cli" holding
  run unix_tbs_wait "$BG_PID" 1
  assert_output "$BOOSTED_TB"
}
