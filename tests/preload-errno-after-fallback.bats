#!/usr/bin/env bats
# When a followed socket's number now holds a file (replaced by a call
# the library cannot see), a write() of an NBD header there first goes
# out as send(MSG_MORE), fails with ENOTSOCK, and is made again as the
# plain write().  The program sees the plain write's result with its own
# errno: before, the write returned 28 with errno left at ENOTSOCK.
# bats file_tags=sanitize

load helpers

@test "a write that fell back to the plain call leaves errno alone" {
  requires strace
  edge_calls_agree reused
  assert_line --regexp '^file reusing a socket: write NBD header += 28 \(errno untouched\)$'
  assert_line --regexp '^file reusing a socket: file size += 56 \(errno untouched\)$'
  # The library did try the corked form first.
  run strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=sendto \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=0 \
    "$PRELOAD_EDGE_CALLS" reused
  assert_success
  grep -E 'sendto\([0-9]+, .*, 28, MSG_MORE, NULL, 0\) += -1 ENOTSOCK' \
    "$BATS_TEST_TMPDIR/trace"
}
