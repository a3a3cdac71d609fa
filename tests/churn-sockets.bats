#!/usr/bin/env bats
# 16 threads open, write, dup2/dup3, close sockets and files and fork under
# the library: every byte arrives as sent, and the library really was at
# work on those sockets (its level-2 log shows them tuned).
# bats file_tags=sanitize

load helpers

@test "churn under the library: every byte checked, sockets tuned, no failure" {
  local log=$BATS_TEST_TMPDIR/sb.log
  LD_PRELOAD=$(preload_value) SOCKBOOST_DEBUG=2 SOCKBOOST_LOG_FILE=$log \
    run vg "$CHURN" 300
  assert_success
  assert_output --regexp "^churn: 16 threads x 300 rounds, [0-9]+ bytes checked, 0 failures$"
  # Sockets of both kinds were tuned, in the parent and in forked children.
  run grep -c "unix socketpair sndbuf $DEFAULT_TB -> $BOOSTED_TB" "$log"
  [ "$output" -gt 100 ]
  run grep -c "tcp connect nodelay 0 -> 1" "$log"
  [ "$output" -gt 10 ]
  [ "$(grep -o '^sockboost\[churn-sockets [0-9]*' "$log" | sort -u | wc -l)" -gt 1 ]
}

@test "the same churn without the library also passes (the program checks itself)" {
  run "$CHURN" 50
  assert_success
  assert_output --partial ", 0 failures"
}
