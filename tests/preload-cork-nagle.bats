#!/usr/bin/env bats
# The naive client with Nagle left on (--no-nodelay) and split writes
# stalls on every request at queue depth 1 (the payload waits for the
# header's delayed ACK).  The library's TCP_NODELAY and corking remove the
# stall: compared as a ratio in one run, never as absolute times.

load helpers

setup () { start_sbnbd_tcp memory:64M; }

# Milliseconds for 32 requests of 4 KiB at queue depth 1.
time_naive_write () {
  local t0 t1
  t0=$(date +%s%N)
  env "$@" "$SBNBD_CLIENT" -q --no-nodelay --split-writes --request-size 4K \
    --queue-depth 1 --length 128K write pattern "$NBD_URI" || return 1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

@test "the Nagle stall disappears by more than an order of magnitude" {
  local plain boosted
  plain=$(time_naive_write LD_PRELOAD=)
  boosted=$(time_naive_write LD_PRELOAD="$(preload_value)")
  echo "32 requests: ${plain} ms plain, ${boosted} ms boosted" >&3
  [ "$boosted" -ge 1 ] || boosted=1
  [ "$plain" -gt $((10 * boosted)) ]
}
