#!/usr/bin/env bats
# SOCKBOOST_LOG_FILE naming a FIFO or a character device: accepted only
# when it is the user's own (or /dev/null, /dev/tty): another user who
# plants a FIFO at the name, in /tmp say, must not read the log.  Before,
# any FIFO with a reader was written to, whoever owned it.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
  mkfifo "$D/sb.fifo"
  # A reader that never blocks the test: this shell holds both ends.
  exec 5<> "$D/sb.fifo"
  cleanup_push 'exec 5>&-'
}

# Run sh under the library at level 2 logging to FILE; sets output.
run_logging_to () {
  run timeout 10 env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$1" sh -c 'echo ran' 5>&-
}

# What the FIFO holds now (its reader sees no end: read for a second).
fifo_contents () {
  timeout 1 cat <&5 || true
}

@test "another user's FIFO is refused: nothing reaches its reader" {
  chown nobody "$D/sb.fifo"
  run_logging_to "$D/sb.fifo"
  assert_success
  assert_line --regexp "^sockboost\[sh [0-9]+\]: cannot log to '$D/sb.fifo': the FIFO belongs to another user; logging to stderr\$"
  assert_line --regexp '^sockboost\[sh [0-9]+\]: settings: '
  assert_equal "$(fifo_contents)" ""
}

@test "the user's own FIFO is written to" {
  run_logging_to "$D/sb.fifo"
  assert_output ran
  run fifo_contents
  assert_line --regexp '^sockboost\[sh [0-9]+\]: settings: '
}

@test "another user's character device is refused" {
  mknod "$D/zero" c 1 5
  chown nobody "$D/zero"
  run_logging_to "$D/zero"
  assert_line --regexp "cannot log to '$D/zero': the device belongs to another user; logging to stderr\$"
}
