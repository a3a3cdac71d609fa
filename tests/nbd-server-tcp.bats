#!/usr/bin/env bats
# TCP: a kernel-chosen port on 127.0.0.1 or ::1, TCP_NODELAY on accepted
# sockets.
# bats file_tags=sanitize

load helpers

setup () { requires nbdinfo; }

@test "-p 0 -b 127.0.0.1: listens on loopback on the port it reports" {
  start_sbnbd_tcp -b 127.0.0.1 pattern:2M
  [ "$NBD_URI" = "nbd://127.0.0.1:$NBD_PORT/" ]
  run ss -tlnp "sport = :$NBD_PORT"
  assert_output --partial "127.0.0.1:$NBD_PORT"
  assert_output --partial "pid=$NBD_PID,"
  run nbdinfo --size "$NBD_URI"
  assert_output 2097152
}

@test "-p 0 without -b listens on 127.0.0.1 only" {
  start_sbnbd_tcp null:1M
  run ss -tlnp "sport = :$NBD_PORT"
  assert_output --partial "127.0.0.1:$NBD_PORT"
  refute_output --partial "0.0.0.0:$NBD_PORT"
}

@test "-p 0 -b ::1: IPv6 loopback" {
  if ! python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
    skip "this machine has no IPv6 loopback address"
  fi
  start_sbnbd_tcp -b ::1 pattern:2M
  [ "$NBD_URI" = "nbd://[::1]:$NBD_PORT/" ]
  run nbdinfo --size "$NBD_URI"
  assert_output 2097152
}

@test "accepted TCP sockets get TCP_NODELAY from the server itself" {
  requires strace
  local log=$BATS_TEST_TMPDIR/strace.log
  strace -f -qq -e trace=setsockopt -o "$log" \
    "$SBNBD_SERVER" -p 0 --run 'nbdinfo --size "$uri"' null:1M
  # The server is the process that set SO_REUSEADDR on its listener;
  # the client (nbdinfo, its child) sets TCP_NODELAY too and must not count.
  local server
  server=$(awk '/SO_REUSEADDR/ { print $1; exit }' "$log")
  [ -n "$server" ]
  run grep -cE "^$server +setsockopt\([0-9]+, SOL_TCP, TCP_NODELAY, \[1\]" "$log"
  assert_output 1
}
