#!/usr/bin/env bats
# An unprivileged user cannot attach to a root process: exit 1 with an
# error that names what it takes, and the process is left as it was.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  [ "$(id -u)" -eq 0 ] || skip "needs root, to start a root process and drop to nobody"
  requires setpriv
  build_static_echo
  start_echo_server "$BATS_TEST_TMPDIR/echo.sock"
  start_echo_client "$BATS_TEST_TMPDIR/echo.sock" "$BATS_TEST_TMPDIR/out" 1
  # Sanitizer and valgrind reports of the helper run as nobody go where
  # nobody may write; the test checks them.
  REPORTS=$ATTACH_TMP/reports
  mkdir -m 0777 "$REPORTS"
}

as_nobody () {
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$REPORTS/asan" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$REPORTS/ubsan" \
    VALGRIND_OPTS="${VALGRIND_OPTS:+$VALGRIND_OPTS }--log-file=$REPORTS/valgrind.%p" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

@test "nobody attaching to a root process: exit 1, CAP_SYS_PTRACE named" {
  sockboost_for_nobody
  run as_nobody env "${NOBODY_ENV[@]}" "$NOBODY_SOCKBOOST" attach "$ECHO_PID"
  assert_failure 1
  assert_output "sockboost attach: $ECHO_PID: permission denied: it belongs to uid 0; run as that user or with CAP_SYS_PTRACE (e.g. as root)"
  assert_equal "$(cat "$REPORTS"/* 2>/dev/null)" ""
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output "$DEFAULT_TB"
}
