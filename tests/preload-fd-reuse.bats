#!/usr/bin/env bats
# A tracked TCP socket's number reused as a file starts clean: after
# close, dup2 of a file onto it and close_range, a write to the file of
# what the library would cork (an NBD option reply header) is a plain
# write() (no send with MSG_MORE tried) and the file is exact.  A socket
# closed behind the library's back (raw syscall) makes one send fail with
# ENOTSOCK, then falls back to write(): the file is still exact.
# strace shows each call's length: the headers are the 20-byte calls.
# bats file_tags=sanitize

load helpers

setup () {
  requires strace
  PROG=$SB_BUILD/tests/progs/preload-fd-reuse
  TRACE=$BATS_TEST_TMPDIR/trace
  run strace -o "$TRACE" -e trace=sendto,sendmsg,write,writev \
    env LD_PRELOAD="$(preload_value)" "$PROG" "$BATS_TEST_TMPDIR"
}

@test "every reused number holds exactly what was written" {
  assert_success
  assert_line --regexp '^close fd [0-9]+ content ok$'
  assert_line --regexp '^dup2 fd [0-9]+ content ok$'
  assert_line --regexp '^close_range-1 fd [0-9]+ content ok$'
  assert_line --regexp '^close_range-2 fd [0-9]+ content ok$'
  assert_line --regexp '^raw-close fd [0-9]+ content ok$'
}

@test "the sockets were being corked before their numbers were reused" {
  assert_success
  [ "$(grep -cE '^sendto\([0-9]+, .*, 20, MSG_MORE, NULL, 0\) += 20$' "$TRACE")" -eq 5 ]
}

@test "close, dup2 and close_range: plain write() only, no send tried" {
  assert_success
  [ "$(grep -cE '^write\([0-9]+, .*, 20\) += 20$' "$TRACE")" -eq 5 ]
  # The only send of the file bytes is the raw-close case's below.
  [ "$(grep -cE '^(sendto|sendmsg)\(.* = -1 ENOTSOCK' "$TRACE")" -eq 1 ]
}

@test "closed behind the library's back: ENOTSOCK once, then write()" {
  assert_success
  local fd
  fd=$(sed -n 's/^raw-close fd \([0-9]*\) content ok$/\1/p' <<< "$output")
  grep -A1 -E "^sendto\($fd, .*, 20, MSG_MORE.* = -1 ENOTSOCK" "$TRACE" |
    grep -E "^write\($fd, .*, 20\) += 20$"
  grep -E "^write\($fd, \"raw-close\\\\n\", 10\) += 10$" "$TRACE"
}
