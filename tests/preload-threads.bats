#!/usr/bin/env bats
# Threads writing different sockets at once under the library: 8 streams
# run together, each with a writer thread on its own socket and a reader
# thread checking every byte at the other end.  Four are TCP loopback
# connections carrying NBD WRITEs whose header and payload go out in
# separate calls (so corking is busy on all four at once), four are unix
# stream sockets (two socketpairs, two connect/accept).  Every byte must
# arrive intact with and without the library; with it, ss shows the unix
# sockets' big send buffer, the level-2 log names all 16 ends, and strace
# shows each NBD header corked on TCP and nothing corked on unix.
# bats file_tags=sanitize

load helpers

MIB=16
DONE_RE="^streams 8 tcp 4 unix 4 bytes-checked $((8 * MIB * 1048576)) messages [1-9][0-9]*$"

setup () { requires ss strace; }

# Run the program with ENV... in hold mode in the background; wait until
# it has checked everything and holds its sockets.  Sets PID.
start_held () {
  # fd 3 is bats' own: the program must not hold it.
  env "$@" "$PRELOAD_THREADS" 8 "$MIB" hold > "$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
  PID=$!
  kill_at_teardown "$PID"
  wait_for_line "$BATS_TEST_TMPDIR/out" '^holding$|preload-threads:' 60
  cat "$BATS_TEST_TMPDIR/out" >&3
  grep -qE "$DONE_RE" "$BATS_TEST_TMPDIR/out"
  grep -qx holding "$BATS_TEST_TMPDIR/out"
}

@test "without the library: all 8 streams intact, unix sockets keep the default buffer" {
  start_held LD_PRELOAD=
  run unix_tbs_wait "$PID" 8
  assert_output "$(printf "$DEFAULT_TB"'\n%.0s' {1..8})"
}

@test "with the library: all 8 streams intact, every end tuned (ss and level-2 log)" {
  start_held LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$BATS_TEST_TMPDIR/log"
  run unix_tbs_wait "$PID" 8
  assert_output "$(printf "$BOOSTED_TB"'\n%.0s' {1..8})"
  run grep -cE '^sockboost\[preload-threads [0-9]+\]: fd [0-9]+ tcp connect nodelay 0 -> 1$' \
    "$BATS_TEST_TMPDIR/log"
  assert_output 4
  run grep -cE '^sockboost\[preload-threads [0-9]+\]: fd [0-9]+ tcp accept nodelay 0 -> 1$' \
    "$BATS_TEST_TMPDIR/log"
  assert_output 4
  run grep -cE "^sockboost\[preload-threads [0-9]+\]: fd [0-9]+ unix (socketpair|connect|accept) sndbuf $DEFAULT_TB -> $BOOSTED_TB\$" \
    "$BATS_TEST_TMPDIR/log"
  assert_output 8
  # Nothing went wrong in the library (no warnings, no framing turned off):
  # besides those, only its settings line, once.
  run grep -c ': settings: sndbuf 2097152, ' "$BATS_TEST_TMPDIR/log"
  assert_output 1
  run grep -vE ' (tcp|unix) (connect|accept|socketpair) |: settings: ' "$BATS_TEST_TMPDIR/log"
  assert_output ''
}

@test "with the library under strace: every NBD header corked on TCP, nothing on unix" {
  run timeout 120 strace -f -yy -o "$BATS_TEST_TMPDIR/trace" \
    -e trace=sendto,sendmsg,write,writev \
    env LD_PRELOAD="$(preload_value)" "$PRELOAD_THREADS" 8 "$MIB"
  assert_success
  assert_output --regexp "$DONE_RE"
  local messages corked_tcp corked_unix
  messages=${output##* }
  corked_tcp=$(grep -cE '^[0-9]+ +send(to|msg)\([0-9]+<TCP:.*MSG_MORE' "$BATS_TEST_TMPDIR/trace" || true)
  corked_unix=$(grep -cE '^[0-9]+ +(send(to|msg)|write|writev)\([0-9]+<UNIX.*MSG_MORE' "$BATS_TEST_TMPDIR/trace" || true)
  echo "messages $messages corked-tcp-sends $corked_tcp corked-unix-sends $corked_unix" >&3
  # Header plus first payload piece of each WRITE: 2 per message, and at
  # least the header of every one.
  [ "$corked_tcp" -ge "$messages" ]
  [ "$corked_tcp" -le $((2 * messages)) ]
  [ "$corked_unix" -eq 0 ]
}

@test "without the library under strace: the program passes no MSG_MORE itself" {
  run timeout 120 strace -f -o "$BATS_TEST_TMPDIR/trace" \
    -e trace=sendto,sendmsg,write,writev "$PRELOAD_THREADS" 8 "$MIB"
  assert_success
  assert_output --regexp "$DONE_RE"
  run grep -c MSG_MORE "$BATS_TEST_TMPDIR/trace"
  assert_output 0
}
