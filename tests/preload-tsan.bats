#!/usr/bin/env bats
# ThreadSanitizer over the library: the churn and stress programs and the
# library, all built with -fsanitize=thread in build-tsan/ (make check
# builds them; make check-tsan runs them longer).  Any data race TSan
# reports fails the program (halt_on_error, exit 66), and the programs
# check every byte themselves.

load helpers

setup () {
  TSAN_BUILD=$SB_ROOT/build-tsan
  [ -x "$TSAN_BUILD/tests/progs/preload-stress" ] ||
    sb_skip "needs the ThreadSanitizer build in build-tsan/ (make check builds it with clang)"
}

# The library only in the program, which carries the TSan runtime.
tsan_run () {
  run timeout 300 env TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
    LD_PRELOAD="$TSAN_BUILD/preload/libsockboost.so" \
    SOCKBOOST_DEBUG=2 SOCKBOOST_LOG_FILE=/dev/null "$@"
}

@test "TSan: fd churn with fork under the library, no race, every byte checked" {
  tsan_run "$TSAN_BUILD/tests/progs/churn-sockets" 100
  assert_success
  assert_output --regexp ", 0 failures$"
  refute_output --partial "ThreadSanitizer"
}

@test "TSan: the stress program (signal handler, shared sockets, dup2, vfork), no race" {
  tsan_run "$TSAN_BUILD/tests/progs/preload-stress" 5
  assert_success
  assert_line --regexp '^bytes-checked [1-9][0-9]* .* failures 0$'
  refute_output --partial "ThreadSanitizer"
}
