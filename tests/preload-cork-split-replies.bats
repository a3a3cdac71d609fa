#!/usr/bin/env bats
# A server that writes each READ reply's header and its data in separate
# write() calls (sbnbd-server --split-replies) sends about two TCP segments
# per 4 KiB reply; under the library the header is corked (MSG_MORE) and
# each reply is one segment.  Counted from outside with ss -ti
# (data_segs_out) on the server's live socket.

load helpers

setup () {
  requires ss
}

# Start the server with ENV... (exported for this call only), read 4 KiB
# at queue depth 1; set RATIO to the server socket's segments per reply
# times 100.  Not under 'run': the processes must be registered for
# cleanup in the test's own shell.
measure () {
  local -x "$@"
  start_sbnbd_tcp --split-replies pattern:1G
  start_bg "$BATS_TEST_TMPDIR/client" env -u LD_PRELOAD "$SBNBD_CLIENT" -q \
    --request-size 4K --queue-depth 1 --length 1G read "$NBD_URI"
  local deadline=$((SECONDS + 20)) sample
  while :; do
    sample=$(segs_per_message "$NBD_PORT" $((4096 + 16)) sport)
    [ -n "$sample" ] && [ "${sample#* }" -ge 2000 ] && break
    [ $SECONDS -lt $deadline ] || { echo "no progress: $sample" >&2; return 1; }
    sleep 0.1
  done
  echo "segments replies: $sample" >&3
  set -- $sample
  RATIO=$((100 * $1 / $2))
}

@test "without the library: about 2 segments per 4 KiB read reply" {
  measure LD_PRELOAD=
  [ "$RATIO" -ge 180 ]
}

@test "with the library: 1 segment per 4 KiB read reply" {
  measure LD_PRELOAD="$(preload_value)"
  [ "$RATIO" -le 110 ]
}
