#!/usr/bin/env bats
# The naive client with Nagle left on (--no-nodelay) and split writes
# stalls on every request at queue depth 1 (the payload waits for the
# header's delayed ACK).  The library's TCP_NODELAY and corking remove the
# stall: compared as a ratio in one run, never as absolute times.

load helpers

setup () { start_sbnbd_tcp memory:64M; }

# Microseconds for 32 requests of 4 KiB at queue depth 1, as the client
# itself times them (connected to done): the start of a process and the
# loading of the library are no part of the stall, and under load they
# took more than the whole boosted transfer.
time_naive_write () {
  local summary
  summary=$(env "$@" "$SBNBD_CLIENT" --json --no-nodelay --split-writes \
    --request-size 4K --queue-depth 1 --length 128K write pattern \
    "$NBD_URI") || return 1
  jq -e '.seconds * 1e6 | floor' <<<"$summary"
}

# The fastest of three interleaved rounds of each: load on a shared
# machine only ever adds time, while the stall is a floor (about 40 ms a
# request) that no round without the library can beat.
@test "the Nagle stall disappears by more than an order of magnitude" {
  local plain=() boosted=() round t best_plain best_boosted
  requires jq
  for round in 1 2 3; do
    t=$(time_naive_write LD_PRELOAD=) && plain+=("$t")
    t=$(time_naive_write LD_PRELOAD="$(preload_value)") && boosted+=("$t")
  done
  echo "32 requests: ${plain[*]} us plain, ${boosted[*]} us boosted" >&3
  [ "${#plain[@]}" -eq 3 ] && [ "${#boosted[@]}" -eq 3 ]
  best_plain=$(printf '%s\n' "${plain[@]}" | sort -n | head -n 1)
  best_boosted=$(printf '%s\n' "${boosted[@]}" | sort -n | head -n 1)
  [ "$best_boosted" -ge 1 ] || best_boosted=1
  [ "$best_plain" -gt $((10 * best_boosted)) ]
}
