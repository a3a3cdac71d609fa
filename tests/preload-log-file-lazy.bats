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
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_LOG_FILE="$D/sb.%p.log" \
    sh -c 'true; python3 -c "import socket; a, b = socket.socketpair(); a.send(b\"x\")"; echo ran'
  assert_output ran
  run ls -A "$D"
  assert_output ''
}

@test "in a process tree, only the process that logs gets its file" {
  local pids=$BATS_TEST_TMPDIR/pids
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 \
    SOCKBOOST_LOG_FILE="$D/sb.%p.log" \
    sh -c 'echo "sh $$"; python3 -c "import os, socket; print(\"python\", os.getpid()); socket.socketpair()"; true'
  assert_success
  local py
  py=$(awk '$1 == "python" { print $2 }' <<< "$output")
  run ls -A "$D"
  assert_output "sb.$py.log"
  run grep -c ' stats: ' "$D/sb.$py.log"
  assert_output 2
}

@test "the first line creates the file (the checks above can fail)" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$D/sb.%p.log" sh -c 'echo $$'
  local pid=$output
  run ls -A "$D"
  assert_output "sb.$pid.log"
}
