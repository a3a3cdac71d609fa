#!/usr/bin/env bats
# The library's log descriptor closed behind its back and reused by the
# program for a file of its own: the library's next line must not land
# in that file.  closefrom(3) closes through the close_range system call
# inside glibc, unseen by the close_range hook (the closefrom hook sees
# it now); a raw close_range system call is never seen (the descriptor
# is checked to still name the log file before each line).  Before, the
# library's lines were written into the program's file.
# bats file_tags=sanitize

load helpers

# Run the program in MODE; its file must hold only its own two lines,
# and the log all four socket lines (the file opened again).
check () {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$BATS_TEST_TMPDIR/sb.log" \
    "$SB_BUILD/tests/progs/preload-closefrom" "$1" "$BATS_TEST_TMPDIR/data"
  assert_success
  assert_line --index 0 --regexp '^FILE fd 9[0-9][0-9]$'
  assert_equal "$(cat "$BATS_TEST_TMPDIR/data")" \
    "$(printf "the program's first line\nthe program's second line")"
  run grep -c 'unix socketpair sndbuf' "$BATS_TEST_TMPDIR/sb.log"
  assert_output 4
}

@test "closefrom: no library line in the program's file" {
  check closefrom
}

@test "a raw close_range system call: no library line in the program's file" {
  check syscall
}
