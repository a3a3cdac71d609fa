#!/usr/bin/env bats
# Everything at once (tests/progs/preload-stress.c): split NBD writes on
# separate sockets, whole requests from several threads and a signal
# handler on one shared socket, descriptor numbers closed and dup2()ed
# over while other threads use them, fork and vfork children: no hang,
# no crash, every byte and request intact, corking still at work.  In
# the sanitized pass this runs the ASan build (any report fails the run);
# make check-tsan runs it under ThreadSanitizer.
# bats file_tags=sanitize

load helpers

@test "stress: no hang, data intact, still corked" {
  run timeout 120 env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 \
    SOCKBOOST_LOG_FILE="$BATS_TEST_TMPDIR/sb.log" \
    "$SB_BUILD/tests/progs/preload-stress" 5
  echo "$output" >&3
  assert_success
  assert_line --regexp '^bytes-checked [1-9][0-9]* shared ([1-9][0-9]*)/\1 handler [1-9][0-9]* churn [1-9][0-9]* forks [1-9][0-9]* vforks [1-9][0-9]* failures 0$'
  # The three streams' split writes were corked all along.
  run grep -cE ' stats: [0-9]+ bytes sent in [0-9]+ calls, [1-9][0-9]* corked$' "$BATS_TEST_TMPDIR/sb.log"
  [ "$output" -ge 3 ]
}
