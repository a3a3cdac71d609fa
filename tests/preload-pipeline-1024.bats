#!/usr/bin/env bats
# Corking has no ceiling on pipelining: with 1024 READs in flight (more
# than nbdcopy's and QEMU's defaults), a naive server writing each reply's
# header and data in separate calls still sends one segment per reply
# where it sends two without the library, and a naive client's WRITE
# headers are still corked.  It stopped at 128 READs in flight before
# ("framing off: too many READs in flight").  Simple replies use the
# server's table of READs in flight; structured replies need none.
# Segments are the kernel's count (TCP_INFO) for the server's socket.
# bats file_tags=sanitize

load helpers

# Segments of the server for 2 rounds of MODE with ENV...: SEGS, REPLIES.
pipeline () {
  local mode=$1; shift
  run env "$@" SOCKBOOST_STATS=1 "$SB_BUILD/tests/progs/preload-pipeline" "$mode" 2
  echo "$output" >&3
  assert_success
  assert_line --regexp '^replies 2176 server-segments [0-9]+ writes 128$'
  SEGS=$(sed -n 's/^replies [0-9]* server-segments \([0-9]*\) .*/\1/p' <<< "$output")
}

# Plain and boosted in turns, twice; the fewest segments of each.
compare () {
  local mode=$1 plain=() boosted=() i
  for i in 1 2; do
    pipeline "$mode" LD_PRELOAD= && plain+=("$SEGS")
    pipeline "$mode" LD_PRELOAD="$(preload_value)" && boosted+=("$SEGS")
    # Every READ reply header (2048) and WRITE header (128) corked.
    assert_line --regexp ' stats: [0-9]+ bytes sent in [0-9]+ calls, 2048 corked$'
    assert_line --regexp ' stats: [0-9]+ bytes sent in [0-9]+ calls, 128 corked$'
  done
  PLAIN=$(printf '%s\n' "${plain[@]}" | sort -n | head -n 1)
  BOOSTED=$(printf '%s\n' "${boosted[@]}" | sort -n | head -n 1)
  echo "$mode: $PLAIN segments plain, $BOOSTED boosted for 2176 replies" >&3
}

@test "simple replies, 1024 READs in flight: at most 0.8x the segments" {
  compare simple
  [ $((100 * BOOSTED)) -le $((80 * PLAIN)) ]
}

@test "structured replies, 1024 READs in flight: at most 0.8x the segments" {
  compare structured
  [ $((100 * BOOSTED)) -le $((80 * PLAIN)) ]
}
