#!/usr/bin/env bats
# A header the library holds for its payload (MSG_MORE) leaves when the
# program's next send on that socket sends nothing, whatever the call:
# plainly it left at once.  The kernel pushes nothing for a call that
# queues no bytes, so the header waited for its 200 ms cork timer: on
# the library of aceb81d each of these took 208 to 212 ms (median of 5
# READs until the client had the reply's header) where plainly they
# took 20 to 50 us.  The server waits for the client to have the header
# before it sends the data, so nothing else can push it.  Where the
# library stops following a stream, it lets go of a header it holds
# then, since no later send would come to it.
# bats file_tags=sanitize

load helpers

NOTHING_SENT=$SB_BUILD/tests/progs/preload-nothing-sent

# Run WAY for ROUNDS READs with ENV...; set MEDIAN_US.
header_wait () {
  local way=$1 rounds=$2; shift 2
  run env "$@" "$NOTHING_SENT" "$way" "$rounds"
  echo "$output" >&3
  assert_success
  assert_line --regexp "^$way rounds $rounds median-us [0-9]+ max-us [0-9]+\$"
  MEDIAN_US=$(sed -n "s/^$way rounds $rounds median-us \([0-9]*\) .*/\1/p" <<< "$output")
}

# The header after WAY's call comes as soon with the library as plainly,
# and the library did hold each of the headers (HELD, 5 by default) of
# ROUNDS (5) READs until then.
not_held () {
  local way=$1 rounds=${2:-5} held=${3:-5} plain
  header_wait "$way" "$rounds" LD_PRELOAD=
  plain=$MEDIAN_US
  header_wait "$way" "$rounds" LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1
  assert_line --regexp " stats: [0-9]+ bytes sent in [0-9]+ calls, $held corked\$"
  # Held by the cork timer, each READ takes 200 ms more than plainly:
  # half of that is the margin.
  [ "$MEDIAN_US" -lt $((plain + 100000)) ]
}

@test "send() of 0 bytes after a held header: no wait for the cork timer" {
  not_held send-zero
}

@test "send() from a NULL buffer (EFAULT) after a held header" {
  not_held send-null
}

@test "writev() of no iovecs after a held header" {
  not_held writev-none
}

@test "sendmmsg() of no messages after a held header" {
  not_held sendmmsg-none
}

@test "sendfile() past the end of its file after a held header" {
  not_held sendfile-eof
}

@test "sendfile() of 0 bytes after a held header" {
  not_held sendfile-zero
}

@test "sendfile() from a socket (EINVAL) after a held header" {
  not_held sendfile-socket
}

@test "sendfile() at offset -1 (EINVAL) after a held header" {
  not_held sendfile-offset
}

@test "splice() of 0 bytes after a held header" {
  not_held splice-zero
}

@test "splice() from an empty pipe (EAGAIN) after a held header" {
  not_held splice-empty
}

@test "splice() from a pipe whose writer is gone after a held header" {
  not_held splice-eof
}

@test "a held header is let go when the library stops following the stream" {
  # The server reads bytes that are no NBD request after the header: from
  # then on its sends take the fast path, where nothing would push it.
  not_held framing-off 1 1
}
