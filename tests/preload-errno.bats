#!/usr/bin/env bats
# Every hook returns what the plain call returns, with the same errno, and
# leaves errno alone on success: the same program's report with and
# without the library must be identical.
# bats file_tags=sanitize

load helpers

@test "return values and errno are those of the plain calls" {
  run "$PRELOAD_ERRNO"
  assert_success
  local plain=$output
  # The check can fail: the program does see failures and successes.
  assert_line --regexp '^send EPIPE MSG_NOSIGNAL +=  ?-1 EPIPE$'
  assert_line --regexp '^close success +=  ?0 \(errno untouched\)$'
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=0 "$PRELOAD_ERRNO"
  assert_success
  assert_output "$plain"
}

@test "the same with forcing, scope=nbd and corking off" {
  run "$PRELOAD_ERRNO"
  local plain=$output
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=0 SOCKBOOST_FORCE=on \
    SOCKBOOST_SCOPE=nbd SOCKBOOST_CORK=off "$PRELOAD_ERRNO"
  assert_success
  assert_output "$plain"
}

@test "the corked TCP path (write as send MSG_MORE) keeps EAGAIN and EPIPE" {
  requires strace
  run "$PRELOAD_ERRNO"
  local plain=$output
  assert_line --regexp '^tcp write EAGAIN \(full\) += -1 EAGAIN$'
  assert_line --regexp '^tcp send EPIPE MSG_NOSIGNAL += -1 EPIPE$'
  run strace -o "$BATS_TEST_TMPDIR/trace" -e trace=sendto,sendmsg \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=0 "$PRELOAD_ERRNO"
  assert_success
  assert_output "$plain"
  # The library did take the corking path for these calls.
  grep -E 'MSG_MORE.*EAGAIN' "$BATS_TEST_TMPDIR/trace"
  grep -E 'MSG_NOSIGNAL\|MSG_MORE.*EPIPE' "$BATS_TEST_TMPDIR/trace"
}
