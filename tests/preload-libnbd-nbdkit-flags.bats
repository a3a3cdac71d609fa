#!/usr/bin/env bats
# libnbd (nbdcopy, nbdinfo) and nbdkit pass MSG_MORE themselves: under
# the library they must send with exactly the flags they chose.  The same
# run (nbdkit serving, nbdcopy writing a file to it and reading it back,
# nbdinfo) is traced with strace -f -yy with and without the library on
# both ends; on the TCP sockets (the library corks only TCP) the set of
# (syscall, flags) combinations must not grow, and the data must be the
# same.  The set alone would miss a MSG_MORE added where the program left
# it off on a call of a kind it corks elsewhere: libnbd sends the 2-byte
# info count inside NBD_OPT_INFO/GO without it, and the library used to
# add it there.  So nbdinfo against nbdkit (one connection, one request
# at a time) is also compared call for call.

load helpers

setup () {
  requires nbdkit nbdcopy nbdinfo strace python3 cmp
  head -c 4M /dev/urandom > "$BATS_TEST_TMPDIR/src"
}

# The whole exchange over TCP with ENV... for nbdkit and everything it
# runs; the trace goes to $BATS_TEST_TMPDIR/NAME.trace, the port to
# NAME.port, the data read back and nbdinfo's output next to them.
exchange () {
  local name=$1 port; shift
  port=$(free_tcp_port)
  echo "$port" > "$BATS_TEST_TMPDIR/$name.port"
  local uri=nbd://127.0.0.1:$port d=$BATS_TEST_TMPDIR
  trace_sends "$d/$name.trace" env "$@" \
    nbdkit -f -p "$port" -i 127.0.0.1 memory 8M --run "
      nbdcopy '$d/src' '$uri' &&
      nbdcopy '$uri' '$d/$name.out' &&
      nbdinfo '$uri' > '$d/$name.info' &&
      nbdinfo --map '$uri' >> '$d/$name.info'"
}

@test "TCP: nbdkit + nbdcopy + nbdinfo use no (syscall, flags) combination the library added" {
  exchange plain LD_PRELOAD=
  local d=$BATS_TEST_TMPDIR
  exchange boosted LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$d/lib.%p.log"
  # The library was there: it tuned nbdkit's accepted sockets.
  cat "$d"/lib.*.log | grep -q '^sockboost\[nbdkit [0-9]*\]: fd [0-9]* tcp accept nodelay 0 -> 1$'
  # Same data both ways, and what was written is what was read back.
  cmp "$d/plain.out" "$d/boosted.out"
  cmp "$d/src" <(head -c 4M "$d/boosted.out")
  tcp_sends "$d/plain.trace" "$(cat "$d/plain.port")" | sort -u > "$d/plain.set"
  tcp_sends "$d/boosted.trace" "$(cat "$d/boosted.port")" | sort -u > "$d/boosted.set"
  { echo "without the library:"; cat "$d/plain.set"
    echo "with the library:"; cat "$d/boosted.set"; } >&3
  # Both ends sent, and the programs' own MSG_MORE is there.
  grep -q '^client .*MSG_MORE' "$d/plain.set"
  grep -q '^server .*MSG_MORE' "$d/plain.set"
  run comm -13 "$d/plain.set" "$d/boosted.set"
  assert_output ''
}

@test "TCP: nbdinfo and nbdkit send call for call with the same flags under the library" {
  local d=$BATS_TEST_TMPDIR name port
  for name in plain boosted; do
    port=$(free_tcp_port)
    if [ $name = plain ]; then set -- LD_PRELOAD=; else set -- LD_PRELOAD="$(preload_value)"; fi
    trace_sends "$d/$name.trace" env "$@" \
      nbdkit -f -p "$port" -i 127.0.0.1 pattern 16M --run "
        nbdinfo nbd://127.0.0.1:$port > '$d/$name.info' &&
        nbdinfo --map nbd://127.0.0.1:$port >> '$d/$name.info'"
    # One connection at a time, one request in flight: a fixed order.
    tcp_sends "$d/$name.trace" "$port" | grep '^client' > "$d/$name.client"
    tcp_sends "$d/$name.trace" "$port" | grep '^server' > "$d/$name.server"
  done
  echo "sends: client $(grep -c . "$d/plain.client") server $(grep -c . "$d/plain.server")," \
    "with MSG_MORE: client $(grep -c MSG_MORE "$d/plain.client")" >&3
  grep -q MSG_MORE "$d/plain.client"
  diff "$d/plain.client" "$d/boosted.client"
  diff "$d/plain.server" "$d/boosted.server"
  diff <(sed 's/127\.0\.0\.1:[0-9]*/PORT/' "$d/plain.info") <(sed 's/127\.0\.0\.1:[0-9]*/PORT/' "$d/boosted.info")
}
