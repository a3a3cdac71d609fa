#!/usr/bin/env bats
# An interrupted `read URI FILE` says how far it got, leaves FILE holding
# exactly the data read without a gap (so its size cannot pass for a
# complete copy), ends its progress bar's line and dies by the signal
# (130 for SIGINT, 143 for SIGTERM).  A second signal stops waiting for
# a server that does not answer.
# bats file_tags=sanitize

load helpers

SIZE=$((64 << 30))                  # far more than the test waits to read

# Start the client reading into $out in the background; bats starts
# background jobs with SIGINT ignored, which the client respects, so
# SIGINT is given back its default first.
start_read () {
  out=$BATS_TEST_TMPDIR/out.img
  err=$BATS_TEST_TMPDIR/client.err
  env --default-signal=INT "$SBNBD_CLIENT" --progress "$@" read "$NBD_URI" \
    "$out" 2> "$err" 3>&- &
  client=$!
  cleanup_push "kill -KILL $client 2>/dev/null"
}

# Wait (bounded) for FILE to hold data.
wait_for_data () {
  wait_for_file "$out" 20 || fail "the client wrote nothing: $(cat "$err")"
}

# Wait (bounded, 20 s) for the client to exit; its status in $status.
wait_for_client () {
  local deadline=$((SECONDS + 20))
  while sbnbd_alive "$client"; do
    [ $SECONDS -lt $deadline ] || fail "the client did not exit"
    sleep 0.05
  done
  status=0
  wait "$client" || status=$?
}

# The message names the bytes kept; FILE has that size and holds the
# pattern from offset 0, checked by serving it and verifying it.
check_outcome () {
  local signal=$1 kept
  run cat "$err"
  # The progress bar's line is ended before the messages.
  assert_equal "${#lines[@]}" 3
  assert_regex "${lines[0]}" '\[[#.]{30}\] .* GiB/s *$'
  assert_line -n 1 --regexp "^sbnbd-client: read interrupted by SIG$signal after [0-9]+ of $SIZE bytes\$"
  kept=$(sed -n "s/^sbnbd-client: read interrupted by SIG$signal after \([0-9]*\) of .*/\1/p" "$err")
  assert_line -n 2 "sbnbd-client: $out holds the first $kept bytes, read without a gap (of $SIZE)"
  [ "$kept" -gt 0 ] && [ "$kept" -lt "$SIZE" ]
  [ "$(stat -c %s "$out")" -eq "$kept" ]
  run "$SBNBD_SERVER" -r -U - --run '"$SBNBD_CLIENT" -q verify "$uri"' "$out"
  assert_success
}

@test "SIGINT: how far it got, FILE cut to the data read, exit 130" {
  start_sbnbd_unix pattern:$SIZE
  start_read --connections 4 --request-size 64K --queue-depth 8
  wait_for_data
  kill -INT "$client"
  wait_for_client
  assert_equal "$status" 130
  check_outcome INT
}

@test "SIGTERM: the same, exit 143" {
  start_sbnbd_unix pattern:$SIZE
  start_read --connections 2 --request-size 1M
  wait_for_data
  kill -TERM "$client"
  wait_for_client
  assert_equal "$status" 143
  check_outcome TERM
}

@test "a second signal stops waiting for a server that no longer answers" {
  start_sbnbd_unix pattern:$SIZE
  # 2 MiB replies do not fit in the server's default socket buffer: with
  # the server stopped, the requests in flight never complete.
  start_read --connections 2 --request-size 2M
  wait_for_data
  kill -STOP "$NBD_PID"
  cleanup_push "kill -CONT $NBD_PID"
  kill -TERM "$client"
  sleep 0.5
  sbnbd_alive "$client" || fail "exited without the replies in flight: $(cat "$err")"
  kill -TERM "$client"
  wait_for_client
  kill -CONT "$NBD_PID"
  assert_equal "$status" 143
  check_outcome TERM
}
