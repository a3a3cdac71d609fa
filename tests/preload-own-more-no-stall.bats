#!/usr/bin/env bats
# A program that writes an NBD header plainly and the payload with
# MSG_MORE of its own (then waits for the reply) is not held back.
# Plainly the header is on its way, unacknowledged, when the payload
# comes, and the kernel's autocorking sends the payload all the same.
# The library had held the header (its own MSG_MORE) until the payload
# came, so nothing was in flight and the program's MSG_MORE held both:
# 206 ms, the kernel's cork timer, where plainly it took 44 ms (the
# server's delayed ACK).  Now the library lets go of a header it holds
# when the program starts passing MSG_MORE itself.

load helpers

PRELOAD_OWN_MORE=$SB_BUILD/tests/progs/preload-own-more

# The slowest of 10 requests, in microseconds, with ENV...
slowest_us () {
  local out
  out=$(env "$@" "$PRELOAD_OWN_MORE" 10) || return 1
  echo "$out" >&3
  sed -n 's/^own-more rounds 10 median-us [0-9]* max-us \([0-9]*\)$/\1/p' <<< "$out"
}

@test "a plain header, a payload with MSG_MORE: no wait for the cork timer" {
  local plain boosted
  plain=$(slowest_us LD_PRELOAD=)
  boosted=$(slowest_us LD_PRELOAD="$(preload_value)")
  [ -n "$plain" ] && [ -n "$boosted" ]
  # Held by the cork timer, a request takes 200 ms more than plainly:
  # half of that is the margin.
  [ "$boosted" -lt $((plain + 100000)) ]
}
