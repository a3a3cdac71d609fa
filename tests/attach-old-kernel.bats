#!/usr/bin/env bats
# On a kernel without pidfd_open or pidfd_getfd (before Linux 5.6),
# sockboost attach exits 1 saying so, before touching any process.  The
# missing call is simulated with strace's error injection.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  requires strace
  build_static_echo
  start_echo_server "$BATS_TEST_TMPDIR/echo.sock"
  start_echo_client "$BATS_TEST_TMPDIR/echo.sock" "$BATS_TEST_TMPDIR/out" 1
}

attach_without () {
  run strace -f -o /dev/null -e trace="$1" -e inject="$1":error=ENOSYS \
    "$SOCKBOOST" attach "$ECHO_PID"
}

@test "no pidfd_getfd: exit 1, the kernel named, nothing changed" {
  attach_without pidfd_getfd
  assert_failure 1
  assert_output "sockboost attach: pidfd_getfd: not supported by this kernel (attach needs Linux 5.6 or later)"
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output "$DEFAULT_TB"
}

@test "no pidfd_open: exit 1, the kernel named" {
  attach_without pidfd_open
  assert_failure 1
  assert_output "sockboost attach: pidfd_open: not supported by this kernel (attach needs Linux 5.6 or later)"
}
