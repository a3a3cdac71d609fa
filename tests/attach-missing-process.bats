#!/usr/bin/env bats
# sockboost attach to a process that does not exist: one error line
# naming it, exit 1, and nothing done to the other processes named.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  MISSING=$(($(cat /proc/sys/kernel/pid_max) + 1))
}

@test "a missing process exits 1 with 'PID: no such process'" {
  run "$SOCKBOOST" attach "$MISSING"
  assert_failure 1
  assert_output "sockboost attach: $MISSING: no such process"
}

@test "with a live process beside it, the live one is left untouched" {
  skip_if_valgrind_lacks_pidfd
  build_static_echo
  start_echo_server "$BATS_TEST_TMPDIR/echo.sock"
  start_echo_client "$BATS_TEST_TMPDIR/echo.sock" "$BATS_TEST_TMPDIR/out" 1
  run "$SOCKBOOST" attach "$ECHO_PID" "$MISSING"
  assert_failure 1
  assert_output "sockboost attach: $MISSING: no such process"
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output "$DEFAULT_TB"
}
