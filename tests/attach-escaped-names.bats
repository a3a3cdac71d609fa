#!/usr/bin/env bats
# What sockboost attach prints from the process it tunes (its name, its
# socket paths) is escaped: a control character in them cannot reach the
# terminal or break a line.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  build_static_echo
  # The process name (comm) comes from the file name; the path is its own.
  cp "$ATTACH_ECHO" "$BATS_TEST_TMPDIR/"$'ec\e[31mho'
  ATTACH_ECHO=$BATS_TEST_TMPDIR/$'ec\e[31mho'
  SOCK=$BATS_TEST_TMPDIR/$'s\nk.sock'
  start_echo_server "$SOCK"
}

@test "the process name and a socket path with control characters come out escaped" {
  run "$SOCKBOOST" attach -v "$ECHO_PID"
  assert_success
  assert_equal "$(sed 's/ fd [0-9]* / fd N /' <<<"$output")" \
    "sockboost[ec\\x1b[31mho $ECHO_PID]: fd N unix listening $BATS_TEST_TMPDIR/s\\nk.sock: left alone (accepted sockets do not inherit its send buffer: --watch tunes them)
sockboost[ec\\x1b[31mho $ECHO_PID]: nothing to change: 1 listening unix socket left alone (accepted sockets do not inherit its send buffer: use --watch)"
  refute_output --partial $'\e'
}
