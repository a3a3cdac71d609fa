#!/usr/bin/env bats
# A server that writes each READ reply's header with send() and its data
# with sendfile(), splice() or sendmmsg() (to save a copy) must not leave
# the library believing the data is still to come: it then corked the
# next 16-byte FLUSH replies, each held about 200 ms by the kernel (208 ms
# median before these calls were hooked, 0.01 ms plain).  The READ reply
# header itself is still corked (SOCKBOOST_STATS counts it).
# bats file_tags=sanitize

load helpers

# Run MODE with ENV..., 20 FLUSHes; set MEDIAN_US.
flush_replies () {
  local mode=$1; shift
  run env "$@" "$SB_BUILD/tests/progs/preload-sendfile-replies" "$mode" 20
  echo "$output" >&3
  assert_success
  assert_line --regexp "^$mode flushes 20 median-us [0-9]+ max-us [0-9]+\$"
  MEDIAN_US=$(sed -n "s/^$mode flushes 20 median-us \([0-9]*\) .*/\1/p" <<< "$output")
}

@test "data by sendfile: FLUSH replies are not held back" {
  flush_replies sendfile LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1
  [ "$MEDIAN_US" -lt 50000 ]
  # The server's socket: handshake (2), header, data, 20 replies; the
  # header corked.
  assert_line --regexp ' stats: 4[0-9]{3} bytes sent in 24 calls, 1 corked$'
}

@test "data by splice: FLUSH replies are not held back" {
  flush_replies splice LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1
  [ "$MEDIAN_US" -lt 50000 ]
  assert_line --regexp ' stats: 4[0-9]{3} bytes sent in 24 calls, 1 corked$'
}

@test "data by sendmmsg: FLUSH replies are not held back" {
  flush_replies sendmmsg LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1
  [ "$MEDIAN_US" -lt 50000 ]
  assert_line --regexp ' stats: 4[0-9]{3} bytes sent in 24 calls, 1 corked$'
}

@test "without the library: the same replies, no stall either" {
  flush_replies sendfile LD_PRELOAD=
  [ "$MEDIAN_US" -lt 50000 ]
}
