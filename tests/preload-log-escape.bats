#!/usr/bin/env bats
# One log call makes exactly one line: a value from the environment or
# the program (a bad setting, the log file's name, the program's own
# name) holding newlines or terminal escape sequences is printed escaped.
# bats file_tags=sanitize

load helpers

# A value meant to forge a second line and to drive the terminal.
HOSTILE=$'2M\nsockboost[sshd 1]: all fine\r\e[2J\e]0;owned\a'
ESCAPED='2M\nsockboost[sshd 1]: all fine\r\x1b[2J\x1b]0;owned\x07'

# Print the message of log line LINE from program NAME, without the prefix.
message_of () {
  [[ $2 =~ ^sockboost\[$1\ [0-9]+\]:\ (.*)$ ]] || return 1
  printf '%s\n' "${BASH_REMATCH[1]}"
}

@test "a bad SOCKBOOST_SNDBUF with newlines and escapes: one escaped warning line" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF="$HOSTILE" sh -c 'echo ran'
  assert_success
  assert_equal "${#lines[@]}" 2
  assert_equal "$(message_of sh "${lines[0]}")" \
    "ignoring SOCKBOOST_SNDBUF='$ESCAPED': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off; using the default"
  assert_equal "${lines[1]}" ran
  [[ $output != *$'\e'* && $output != *$'\r'* && $output != *$'\a'* ]]
}

@test "the same warnings in a log file: one line each" {
  local log=$BATS_TEST_TMPDIR/sb.log
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF="$HOSTILE" \
    SOCKBOOST_FORCE=$'on\n' SOCKBOOST_LOG_FILE="$log" sh -c 'echo ran'
  assert_output ran
  run grep -c '' "$log"
  assert_output 2
  grep -qF "ignoring SOCKBOOST_SNDBUF='$ESCAPED'" "$log"
  grep -qF "ignoring SOCKBOOST_FORCE='on\\n'" "$log"
  run grep -c $'[\e\r\a]' "$log"
  assert_output 0
}

@test "a log file name with a newline that cannot be opened: one escaped warning" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE=$'/nonexistent/a\nb\e[1m.%p' sh -c 'echo ran'
  assert_success
  assert_equal "${#lines[@]}" 3
  [[ $(message_of sh "${lines[0]}") =~ ^cannot\ log\ to\ \'/nonexistent/a\\nb\\x1b\[1m\.[0-9]+\':\ No\ such\ file\ or\ directory\;\ logging\ to\ stderr$ ]]
  message_of sh "${lines[1]}" | grep -qF "log '/nonexistent/a\\nb\\x1b[1m.%p';"
  assert_equal "${lines[2]}" ran
}

@test "a program name with a newline and escapes is escaped in every line" {
  local out=$BATS_TEST_TMPDIR/out
  # bash sets the name; only the program it execs has the library.
  start_bg "$out" bash -c 'LD_PRELOAD=$1 SOCKBOOST_DEBUG=2 exec -a "$2" "$3" pair stream' \
    _ "$(preload_value)" $'/x/ev\nil\e[7m' "$PRELOAD_SOCKETS"
  wait_for_line "$out" holding
  # The settings line and one line per tuned end of the pair, nothing else.
  run grep -c '^sockboost\[ev\\nil\\x1b\[7m [0-9]*\]: ' "$out"
  assert_output 3
  run grep -c 'sockboost' "$out"
  assert_output 3
  run grep -c $'\e' "$out"
  assert_output 0
}
