#!/usr/bin/env bats
# A program that sends NBD requests on one TCP socket from its main loop
# and from a SIGALRM handler (send() is async-signal-safe) runs as it does
# without the library: the handler interrupts the main loop inside the
# library's hooks too, and a hook that waited there for its own thread
# would never return (it hung at 100% CPU before).  The tracker it could
# not follow is turned off, with the reason logged at level 2.
# bats file_tags=sanitize

load helpers

@test "sends from a signal handler: the program finishes, every request intact" {
  run timeout 30 env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    "$SB_BUILD/tests/progs/preload-signal-send" 3
  echo "$output" >&3
  assert_success
  assert_line --regexp '^main [1-9][0-9]* handler [1-9][0-9]* received [1-9][0-9]*$'
}

@test "without the library the same program finishes too" {
  run timeout 30 "$SB_BUILD/tests/progs/preload-signal-send" 1
  assert_success
}
