#!/usr/bin/env bats
# sbnbd-server --no-nodelay leaves Nagle's algorithm on for the TCP
# connections it accepts, as qemu-nbd before 8.0 does: it sets no
# TCP_NODELAY (strace), and with --split-replies each small reply's data
# waits for the client's delayed ACK.
# bats file_tags=sanitize

load helpers

setup () { requires strace; }

# setsockopt(TCP_NODELAY) calls the server made while nbdinfo read the
# size of its export; the server's own arguments are "$@".
server_nodelay_calls () {
  local log=$BATS_TEST_TMPDIR/strace.log
  strace -f -qq -e trace=setsockopt -o "$log" \
    "$SBNBD_SERVER" -p 0 "$@" --run 'nbdinfo --size "$uri" >/dev/null' null:1M
  # The server is the process that set SO_REUSEADDR on its listener;
  # nbdinfo (its child) sets TCP_NODELAY too and must not count.
  local server
  server=$(awk '/SO_REUSEADDR/ { print $1; exit }' "$log")
  [ -n "$server" ] || { echo "no server in $log" >&2; return 1; }
  grep -cE "^$server +setsockopt\([0-9]+, SOL_TCP, TCP_NODELAY, \[1\]" "$log"
}

# Seconds that 20 sequential 4 KiB reads take from the server at URI
# (the client sets TCP_NODELAY itself, so only the server's side can
# stall).  The servers are started in the test itself, not in a command
# substitution, whose subshell would lose their cleanup.
read_seconds () {
  "$SBNBD_CLIENT" read --request-size 4K --queue-depth 1 --length 80K \
    --json "$1" /dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])'
}

@test "--no-nodelay: the server sets no TCP_NODELAY on accepted sockets" {
  requires nbdinfo
  run server_nodelay_calls --no-nodelay
  assert_output 0
  # The same check counts the default server's call: it can fail.
  run server_nodelay_calls
  assert_output 1
}

@test "--no-nodelay --split-replies: each small reply waits for a delayed ACK" {
  local stalled fast stalled_uri
  start_sbnbd_tcp --split-replies --no-nodelay pattern:1M
  stalled_uri=$NBD_URI
  start_sbnbd_tcp --split-replies pattern:1M
  stalled=$(read_seconds "$stalled_uri")
  fast=$(read_seconds "$NBD_URI")
  echo "20 reads: $stalled s with Nagle on, $fast s without" >&3
  # About 40 ms per reply against well under 1 ms: a wide margin.
  python3 -c "import sys; sys.exit(0 if $stalled > 10 * $fast else 1)"
}
