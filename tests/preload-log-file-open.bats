#!/usr/bin/env bats
# How SOCKBOOST_LOG_FILE is opened: created mode 0600, append-only and
# close-on-exec; never a file someone else owns or one with another name
# (a hard link); a FIFO without a reader does not stall the program;
# /dev/null and /dev/stderr keep working; a name that cannot be opened
# gives one warning and the log goes to stderr.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
}

# Run sh under the library at level 2 logging to FILE; sets output.
run_logging_to () {
  run timeout 10 env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$1" sh -c 'echo ran'
}

@test "created 0600 whatever the umask, append-only, close-on-exec" {
  local log=$D/sb.log fd
  umask 000
  start_bg_boosted "$D/out" SOCKBOOST_DEBUG=2 SOCKBOOST_LOG_FILE="$log" \
    "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$D/out" holding
  assert_equal "$(stat -c %a "$log")" 600
  fd=$(find "/proc/$BG_PID/fd" -lname "$log" -printf '%f\n')
  [ "$fd" -ge 900 ]
  # fdinfo flags, octal: O_APPEND 02000, O_CLOEXEC 02000000, O_WRONLY 1.
  local flags
  flags=$(awk '/^flags:/ { print $2 }' "/proc/$BG_PID/fdinfo/$fd")
  (( (8#$flags & 8#2000) && (8#$flags & 8#2000000) && (8#$flags & 3) == 1 ))
  # Appended to, not truncated: a second process adds its lines after.
  run_logging_to "$log"
  run grep -c ': settings: ' "$log"
  assert_output 2
}

@test "a file of another user is refused and left untouched" {
  echo theirs > "$D/sb.log"
  chown nobody "$D/sb.log"
  run_logging_to "$D/sb.log"
  assert_line --regexp "^sockboost\[sh [0-9]+\]: cannot log to '$D/sb.log': the file belongs to another user; logging to stderr\$"
  assert_line --regexp '^sockboost\[sh [0-9]+\]: settings: '
  assert_equal "$(cat "$D/sb.log")" theirs
}

@test "a hard link to another file is refused and the file left untouched" {
  echo mine > "$D/other"
  ln "$D/other" "$D/sb.log"
  run_logging_to "$D/sb.log"
  assert_line --regexp "cannot log to '$D/sb.log': the file has other hard links; logging to stderr\$"
  assert_equal "$(cat "$D/other")" mine
}

@test "a FIFO without a reader: no stall, one warning" {
  mkfifo "$D/sb.fifo"
  run_logging_to "$D/sb.fifo"
  assert_success
  assert_line --regexp "cannot log to '$D/sb.fifo': No such device or address; logging to stderr\$"
  assert_line ran
}

@test "/dev/null swallows the log; /dev/stderr is standard error" {
  run_logging_to /dev/null
  assert_output ran
  run_logging_to /dev/stderr
  assert_success
  assert_line --regexp '^sockboost\[sh [0-9]+\]: settings: .*, log .*/dev/stderr'
  run grep -c 'cannot log' <<< "$output"
  assert_output 0
}

@test "a missing directory: one warning, then the log on stderr" {
  run_logging_to "$D/missing/sb.%p.log"
  assert_success
  assert_equal "${#lines[@]}" 3
  assert_line --index 0 --regexp "^sockboost\[sh [0-9]+\]: cannot log to '$D/missing/sb\.[0-9]+\.log': No such file or directory; logging to stderr\$"
  assert_line --index 1 --regexp '^sockboost\[sh [0-9]+\]: settings: '
  [ ! -e "$D/missing" ]
}
