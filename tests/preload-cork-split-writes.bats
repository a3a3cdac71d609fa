#!/usr/bin/env bats
# An NBD client that writes each WRITE's header and payload in separate
# write() calls sends about two TCP segments per request; under the
# library the header is corked (MSG_MORE) and each request is one segment.
# Counted from outside with ss -ti (data_segs_out) on the live socket.

load helpers

setup () {
  requires ss
  start_tcp_sbnbd_server memory:1G
}

# Segments per 4 KiB request of a running naive client: prints the ratio*100.
measure () {
  start_bg "$BATS_TEST_TMPDIR/client" env "$@" "$SBNBD_CLIENT" -q --split-writes \
    --request-size 4K --queue-depth 1 --length 1G write pattern "$NBD_URI"
  local client=$BG_PID deadline=$((SECONDS + 20)) sample
  # Wait until a few thousand requests went out, then sample once.
  while :; do
    sample=$(segs_per_message "$NBD_PORT" $((4096 + 28)))
    [ -n "$sample" ] && [ "${sample#* }" -ge 2000 ] && break
    [ $SECONDS -lt $deadline ] || { echo "client made no progress: $sample" >&2; return 1; }
    sleep 0.1
  done
  kill "$client"
  echo "segments requests: $sample" >&3
  set -- $sample
  echo $((100 * $1 / $2))
}

@test "without the library: about 2 segments per request" {
  run measure LD_PRELOAD=
  assert_success
  [ "$output" -ge 180 ]
}

@test "with the library: 1 segment per request" {
  run measure LD_PRELOAD="$(preload_value)"
  assert_success
  [ "$output" -le 110 ]
}

@test "SOCKBOOST_CORK=off: back to about 2 segments per request" {
  run measure LD_PRELOAD="$(preload_value)" SOCKBOOST_CORK=off
  assert_success
  [ "$output" -ge 180 ]
}
