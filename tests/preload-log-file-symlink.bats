#!/usr/bin/env bats
# A symbolic link planted at the log file's name is never followed: its
# target is left untouched (not written, not created), one warning goes
# to stderr, and the log goes there too.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
  echo 'precious data' > "$D/victim"
  touch -d '2001-01-01 00:00:00' "$D/victim"
  VICTIM_BEFORE=$(stat -c '%s %Y %a' "$D/victim")
}

# The one line saying that the log file at PATH was refused as a link.
assert_refused_link () {
  assert_equal "$(grep -cF "cannot log to '$1': it is a symbolic link, which is not followed; logging to stderr" <<< "$2")" 1
}

@test "a link to an existing file: the file is left as it was" {
  ln -s "$D/victim" "$D/sb.log"
  run timeout 10 env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$D/sb.log" sh -c 'echo ran'
  assert_success
  assert_refused_link "$D/sb.log" "$output"
  # The log went to stderr instead.
  assert_line --regexp '^sockboost\[sh [0-9]+\]: settings: '
  assert_line ran
  assert_equal "$(stat -c '%s %Y %a' "$D/victim")" "$VICTIM_BEFORE"
  assert_equal "$(cat "$D/victim")" 'precious data'
}

@test "a dangling link: its target is not created" {
  ln -s "$D/new-victim" "$D/sb.log"
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$D/sb.log" sh -c 'echo ran'
  assert_success
  assert_refused_link "$D/sb.log" "$output"
  [ ! -e "$D/new-victim" ]
}

@test "a link planted at the name %p will give (/tmp/sb.%p.log): not followed" {
  mkfifo "$D/go"
  # The process waits for the link before it execs the program (same pid).
  (read -r _ < "$D/go"
   exec env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
     SOCKBOOST_LOG_FILE="$D/sb.%p.log" sh -c 'echo ran' > "$D/out" 2>&1) &
  local pid=$!
  ln -s "$D/victim" "$D/sb.$pid.log"
  echo go > "$D/go"
  wait "$pid"
  run cat "$D/out"
  assert_refused_link "$D/sb.$pid.log" "$output"
  assert_line ran
  assert_equal "$(stat -c '%s %Y %a' "$D/victim")" "$VICTIM_BEFORE"
}

@test "without the link the same settings do write the file (the checks above can fail)" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$D/sb.log" sh -c 'echo ran'
  assert_output ran
  grep -q '^sockboost\[sh [0-9]*\]: settings: ' "$D/sb.log"
}
