#!/usr/bin/env bats
# The log file is created only when there is a first line to write: a
# process that logs nothing leaves no file behind, even with a %p name.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR/logs
  mkdir "$D"
}

@test "processes that log nothing create no file" {
  # preload-errno makes, tunes, uses and closes sockets of every kind.
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_LOG_FILE="$D/sb.%p.log" \
    sh -c 'true; "$1" > /dev/null && echo ran' _ "$PRELOAD_ERRNO"
  assert_output ran
  run ls -A "$D"
  assert_output ''
}

@test "in a process tree, only the process that logs gets its file" {
  # With SOCKBOOST_STATS=1 only the one with tuned sockets has lines.
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 \
    SOCKBOOST_LOG_FILE="$D/sb.%p.log" \
    sh -c 'echo $$; "$1" > /dev/null; true' _ "$PRELOAD_ERRNO"
  assert_success
  local sh_pid=$output
  run ls -A "$D"
  assert_output --regexp '^sb\.[0-9]+\.log$'
  [ "$output" != "sb.$sh_pid.log" ]
  run grep -c '^sockboost\[preload-errno [0-9]*\]: fd [0-9]* stats: ' "$D/$output"
  [ "$output" -ge 1 ]
}

@test "the first line creates the file (the checks above can fail)" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$D/sb.%p.log" sh -c 'echo $$'
  local pid=$output
  run ls -A "$D"
  assert_output "sb.$pid.log"
}
