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

# Segments and replies the server's socket on PORT sent, as "segs replies".
server_segs_per_reply () {
  ss -tin "sport = :$1" | awk -v b="$2" '
    { for (i = 1; i <= NF; i++) {
        if ($i ~ /^bytes_sent:/) { split($i, a, ":"); sent = a[2] }
        if ($i ~ /^data_segs_out:/) { split($i, a, ":"); segs = a[2] } } }
    END { if (sent) printf "%d %d\n", segs, sent / b }'
}

# Start the server with ENV..., read 4 KiB at queue depth 1; set RATIO
# to the segments per reply times 100.  Not under 'run': the processes
# must be registered for cleanup in the test's own shell.
measure () {
  env "$@" "$SBNBD_SERVER" -p 0 --print-uri --split-replies pattern:1G \
    > "$BATS_TEST_TMPDIR/uri" 2>&1 3>&- &
  kill_at_teardown $!
  wait_for_line "$BATS_TEST_TMPDIR/uri" '^nbd://'
  local uri port
  uri=$(grep -m1 '^nbd://' "$BATS_TEST_TMPDIR/uri")
  port=${uri##*:}; port=${port%%/*}
  start_bg "$BATS_TEST_TMPDIR/client" "$SBNBD_CLIENT" -q --request-size 4K \
    --queue-depth 1 --length 1G read "$uri"
  local deadline=$((SECONDS + 20)) sample
  while :; do
    sample=$(server_segs_per_reply "$port" $((4096 + 16)))
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
