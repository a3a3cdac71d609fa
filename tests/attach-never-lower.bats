#!/usr/bin/env bats
# sockboost attach never lowers a send buffer the program made larger
# itself, as the library does not.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  skip_unless_cap_net_admin
  start_holder --big
}

@test "a unix socket with a larger buffer is left alone, the others raised" {
  run "$SOCKBOOST" attach -v "$HOLDER_PID"
  assert_success
  assert_line --regexp "fd [0-9]+ unix connected unnamed: sndbuf 6291456 left alone\$"
  run holder_says report
  assert_line "unix-big sndbuf=6291456 nodelay=-"
  assert_line "unix-stream-a sndbuf=$BOOSTED_TB nodelay=-"
}
