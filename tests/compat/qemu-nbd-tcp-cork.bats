#!/usr/bin/env bats
# qemu-nbd 8.0 and later cork each reply with TCP_CORK and set
# TCP_NODELAY themselves: there the library must add no MSG_MORE of its
# own.  qemu-img convert copies a fragmented sparse image (structured
# replies of many chunks) from qemu-nbd over TCP, under strace -f -yy,
# without and with the library on both ends, and the copies are
# identical to the image.  From qemu-nbd's first TCP_CORK on (its
# transmission phase), its sends keep exactly the flags of the plain run.
# Before that, in the handshake, the library corks the option replies
# qemu-nbd writes in pieces (header, then data), as it does for any
# program that does not cork: each such MSG_MORE is followed by the rest
# of its message, never by a cork call or by silence.

load ../helpers

setup () {
  requires qemu-nbd qemu-img strace python3 cmp
  IMG=$BATS_TEST_TMPDIR/sparse.img
  make_sparse_image "$IMG" 12
}

# Copy the image through qemu-nbd once, every process getting ENV...;
# NAME.trace, NAME.port and NAME.img are left in the test's directory.
copy_traced () {
  local name=$1 port d=$BATS_TEST_TMPDIR; shift
  port=$(free_tcp_port)
  echo "$port" > "$d/$name.port"
  # Without -t qemu-nbd serves one client and exits when it leaves.
  trace_sends --also setsockopt "$d/$name.trace" env "$@" sh -c "
    qemu-nbd -r -f raw -b 127.0.0.1 -p $port '$IMG' &
    until ss -Htln 'sport = :$port' | grep -q .; do sleep 0.05; done
    qemu-img convert -f raw -O raw nbd://127.0.0.1:$port/ '$d/$name.img'
    wait"
  cmp "$IMG" "$d/$name.img"
}

# Sends and TCP_CORK calls, in order, of trace NAME (tcp_sends).
sequence () {
  tcp_sends "$BATS_TEST_TMPDIR/$1.trace" "$(cat "$BATS_TEST_TMPDIR/$1.port")"
}

# The sends of SIDE in sequence file FILE from its first TCP_CORK on.
after_first_cork () {
  awk -v side="$1" '$1 == side && $2 == "cork" { on = 1; next }
                    $1 == side && on' "$2"
}

@test "qemu-nbd corking itself: from its first TCP_CORK on the library adds no MSG_MORE or other flag" {
  local d=$BATS_TEST_TMPDIR corks
  copy_traced plain LD_PRELOAD=
  copy_traced boosted LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$d/lib.%p.log"
  sequence plain > "$d/plain.seq"
  sequence boosted > "$d/boosted.seq"
  # The library was in qemu-nbd and tuned its accepted socket.
  grep -hqE '^sockboost\[qemu-nbd [0-9]+\]: fd [0-9]+ tcp accept nodelay' "$d"/lib.*.log
  corks=$(grep -c '^server cork' "$d/boosted.seq" || true)
  read_versions
  echo "QEMU $QEMU_VERSION: $corks TCP_CORK calls; MSG_MORE the library added before the first:" \
    "$(awk '$1 == "server" && $2 == "cork" { exit } /^server .*MSG_MORE/ { n++ } END { print n + 0 }' \
      "$d/boosted.seq")" >&3
  if ! qemu_at_least 8.0; then
    # Before 8.0 qemu-nbd never corks: nothing to check here.
    assert_equal "$corks" 0
    return
  fi
  [ "$corks" -gt 0 ]
  [ "$(grep -c '^server cork' "$d/plain.seq")" -gt 0 ]
  after_first_cork server "$d/plain.seq" | sort -u > "$d/plain.set"
  after_first_cork server "$d/boosted.seq" | sort -u > "$d/boosted.set"
  { echo "qemu-nbd's sends from its first TCP_CORK on, without the library:"
    cat "$d/plain.set"; echo "with it:"; cat "$d/boosted.set"; } >&3
  grep -q '^server sendmsg' "$d/boosted.set"
  run grep MSG_MORE "$d/boosted.set"
  assert_failure
  run comm -13 "$d/plain.set" "$d/boosted.set"
  assert_output ''
}

@test "qemu-nbd and qemu-img under the library: every MSG_MORE it adds has a send after it" {
  local d=$BATS_TEST_TMPDIR
  copy_traced boosted LD_PRELOAD="$(preload_value)"
  sequence boosted > "$d/boosted.seq"
  # A send with MSG_MORE followed on its side by a cork call or by
  # nothing would hold its bytes back (until TCP's 200 ms timer).
  run awk '{ if (held[$1] && $2 == "cork") print "held before a cork:", $0
             held[$1] = ($2 != "cork" && $3 ~ /MSG_MORE/) }
           END { for (s in held) if (held[s]) print "held at the end:", s }' "$d/boosted.seq"
  assert_output ''
  grep -q 'MSG_MORE' "$d/boosted.seq"
}
