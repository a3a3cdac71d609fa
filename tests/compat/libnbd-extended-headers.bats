#!/usr/bin/env bats
# libnbd (1.18 and later) and qemu-nbd (8.2 and later) negotiate extended
# headers: 32-byte requests and replies.  Over TCP, under the library on
# both ends, the framing tracker either follows them or turns itself off
# (its log says which); either way libnbd, which passes MSG_MORE itself,
# sends with exactly the flags it chose, and the data are intact.  The
# run (qemu-nbd serving a file, nbdcopy writing it and reading it back,
# nbdinfo) is traced with strace -f -yy without and with the library;
# libnbd's set of (syscall, flags) combinations must not grow, and
# nbdinfo alone (one request at a time) must send call for call the same.

load ../helpers

setup () {
  requires qemu-nbd nbdcopy nbdinfo strace python3 cmp
  head -c 4M /dev/urandom > "$BATS_TEST_TMPDIR/src"
  read_versions
  WANT_EXTENDED=false
  if libnbd_at_least 1.18 && qemu_at_least 8.2; then WANT_EXTENDED=true; fi
  JSON_EXTENDED='import json, sys
print(str(json.load(open(sys.argv[1])).get("extended", False)).lower())'
}

# Serve a fresh 8 MiB file with qemu-nbd over TCP and run CLIENTS (a
# shell command using $uri, and $out as the prefix of its output files)
# against it, every process getting ENV...; NAME.trace, NAME.port and
# NAME.disk are left in the test's directory beside the clients' files.
exchange () {
  local name=$1 clients=$2 port d=$BATS_TEST_TMPDIR; shift 2
  port=$(free_tcp_port)
  echo "$port" > "$d/$name.port"
  truncate -s 8M "$d/$name.disk"
  trace_sends "$d/$name.trace" env "$@" uri="nbd://127.0.0.1:$port" out="$d/$name" sh -c "
    qemu-nbd -t -f raw -b 127.0.0.1 -p $port '$d/$name.disk' & server=\$!
    until ss -Htln 'sport = :$port' | grep -q .; do sleep 0.05; done
    $clients; status=\$?
    kill \$server; wait \$server; exit \$status"
}

# libnbd's sends in trace NAME, one "SYSCALL FLAGS" line each, in order.
libnbd_sends () {
  tcp_sends "$BATS_TEST_TMPDIR/$1.trace" "$(cat "$BATS_TEST_TMPDIR/$1.port")" |
    awk '$1 == "client" { print $2, $3 }'
}

# What the library's log (level 2) says of its trackers in libnbd's
# programs and in qemu-nbd: nothing while they follow the streams.
tracker_verdicts () {
  cat "$BATS_TEST_TMPDIR"/lib.*.log | grep -E '^sockboost\[(nbdcopy|nbdinfo|qemu-nbd) ' |
    grep -oE 'framing off: .*' | sort | uniq -c
}

@test "nbdcopy and nbdinfo with extended headers: no (syscall, flags) combination added, data intact" {
  local d=$BATS_TEST_TMPDIR
  local clients="nbdcopy '$d/src' \"\$uri\" && nbdcopy \"\$uri\" \"\$out.out\" &&
    nbdinfo --json \"\$uri\" > \"\$out.json\""
  exchange plain "$clients" LD_PRELOAD=
  exchange boosted "$clients" LD_PRELOAD="$(preload_value)" \
    SOCKBOOST_DEBUG=2 SOCKBOOST_STATS=1 SOCKBOOST_LOG_FILE="$d/lib.%p.log"
  # Extended headers were negotiated, with the library as without it
  # (nbdinfo before libnbd 1.18 has no "extended": none negotiated).
  run python3 -c "$JSON_EXTENDED" \
    "$d/boosted.json"
  assert_output "$WANT_EXTENDED"
  run python3 -c "$JSON_EXTENDED" \
    "$d/plain.json"
  assert_output "$WANT_EXTENDED"
  # The library followed libnbd's sockets (libnbd sets TCP_NODELAY
  # itself, so only the counters at exit show them) and corked nothing.
  run grep -hE '^sockboost\[(nbdcopy|nbdinfo) [0-9]+\]: fd [0-9]+ stats: ' "$d"/lib.*.log
  assert_line --regexp '^sockboost\[nbdcopy '
  assert_line --regexp '^sockboost\[nbdinfo '
  refute_output --regexp ' [1-9][0-9]* corked$'
  # What its tracker made of them: following, or off and why.
  echo "libnbd $LIBNBD_VERSION, qemu-nbd $QEMU_VERSION, extended headers: $WANT_EXTENDED;" \
    "tracker: $(tracker_verdicts | tr -s ' \n' ' ' || true)" >&3
  if [ -z "$(tracker_verdicts)" ]; then
    echo "(the trackers followed every connection, on both ends)" >&3
  fi
  # The data went in and came back intact.
  cmp "$d/src" <(head -c 4M "$d/boosted.disk")
  cmp "$d/src" <(head -c 4M "$d/boosted.out")
  cmp "$d/plain.out" "$d/boosted.out"
  libnbd_sends plain | sort -u > "$d/plain.set"
  libnbd_sends boosted | sort -u > "$d/boosted.set"
  { echo "libnbd without the library:"; cat "$d/plain.set"
    echo "with the library:"; cat "$d/boosted.set"; } >&3
  grep -q MSG_MORE "$d/plain.set"
  run comm -13 "$d/plain.set" "$d/boosted.set"
  assert_output ''
}

@test "nbdinfo with extended headers sends call for call with the same flags under the library" {
  local d=$BATS_TEST_TMPDIR
  local clients="nbdinfo \"\$uri\" > \"\$out.info\" && nbdinfo --map \"\$uri\" >> \"\$out.info\""
  exchange plain "$clients" LD_PRELOAD=
  exchange boosted "$clients" LD_PRELOAD="$(preload_value)"
  libnbd_sends plain > "$d/plain.calls"
  libnbd_sends boosted > "$d/boosted.calls"
  echo "nbdinfo: $(grep -c . "$d/plain.calls") sends, $(grep -c MSG_MORE "$d/plain.calls") with MSG_MORE" >&3
  grep -q MSG_MORE "$d/plain.calls"
  diff "$d/plain.calls" "$d/boosted.calls"
  diff <(sed 's/127\.0\.0\.1:[0-9]*/PORT/' "$d/plain.info") \
    <(sed 's/127\.0\.0\.1:[0-9]*/PORT/' "$d/boosted.info")
}
