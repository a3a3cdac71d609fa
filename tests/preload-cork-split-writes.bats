#!/usr/bin/env bats
# An NBD client that writes each WRITE's header and payload in separate
# write() calls sends about two TCP segments per request; under the
# library the header is corked (MSG_MORE) and each request is one segment.
# Counted from outside with ss -ti (data_segs_out) on the live socket.

load helpers

setup () {
  requires ss
  start_sbnbd_tcp memory:1G
}

# Start a naive client with ENV... writing 4 KiB requests at queue depth 1
# and set RATIO to its segments per request times 100.  Not under 'run':
# the client must be registered for cleanup in the test's own shell.
measure () {
  # fd 3 is bats' own: the client must not hold it.
  env "$@" "$SBNBD_CLIENT" -q --split-writes --request-size 4K \
    --queue-depth 1 --length 1G write pattern "$NBD_URI" \
    > "$BATS_TEST_TMPDIR/client" 2>&1 3>&- &
  kill_at_teardown $!
  local deadline=$((SECONDS + 20)) sample
  # Wait until a few thousand requests went out, then sample once.
  while :; do
    sample=$(segs_per_message "$NBD_PORT" $((4096 + 28)))
    [ -n "$sample" ] && [ "${sample#* }" -ge 2000 ] && break
    if [ $SECONDS -ge $deadline ]; then
      echo "client made no progress: '$sample'; its output:" >&2
      cat "$BATS_TEST_TMPDIR/client" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "segments requests: $sample" >&3
  set -- $sample
  RATIO=$((100 * $1 / $2))
}

@test "without the library: about 2 segments per request" {
  measure LD_PRELOAD=
  [ "$RATIO" -ge 180 ]
}

@test "with the library: 1 segment per request" {
  measure LD_PRELOAD="$(preload_value)"
  [ "$RATIO" -le 110 ]
}

@test "SOCKBOOST_CORK=off: back to about 2 segments per request" {
  measure LD_PRELOAD="$(preload_value)" SOCKBOOST_CORK=off
  [ "$RATIO" -ge 180 ]
}
