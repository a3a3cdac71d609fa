#!/usr/bin/env bats
# sockboost attach boosts the live unix connection of a statically linked
# server, which LD_PRELOAD cannot reach, while its client keeps talking;
# every byte comes back as it was sent.
# bats file_tags=sanitize
bats_require_minimum_version 1.5.0
load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  build_static_echo
  SOCK=$BATS_TEST_TMPDIR/echo.sock
  head -c $((8 << 20)) /dev/urandom >"$BATS_TEST_TMPDIR/in"
}

@test "LD_PRELOAD leaves the static server at the default; attach raises it mid-stream" {
  start_echo_server "$SOCK" LD_PRELOAD="$(preload_value)"
  start_echo_client "$SOCK" "$BATS_TEST_TMPDIR/out" 1
  head -c $((4 << 20)) "$BATS_TEST_TMPDIR/in" >&9
  wait_for_size "$BATS_TEST_TMPDIR/out" $((4 << 20))
  run ! grep -q libsockboost "/proc/$ECHO_PID/maps"
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output "$DEFAULT_TB"

  run "$SOCKBOOST" attach "$ECHO_PID"
  assert_success
  assert_output --regexp "^sockboost\[attach-echo $ECHO_PID\]: fd [0-9]+ unix connected sndbuf $DEFAULT_TB -> $BOOSTED_TB\$"
  run unix_tbs_of_pid "$ECHO_PID"
  assert_output "$BOOSTED_TB"
  run "$SOCKBOOST" status "$ECHO_PID"
  assert_output --regexp "unix +ESTAB +$BOOSTED_TB +yes +attach-echo $CLIENT_PID +$SOCK"

  tail -c +$(((4 << 20) + 1)) "$BATS_TEST_TMPDIR/in" >&9
  finish_echo_client
  cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
}
