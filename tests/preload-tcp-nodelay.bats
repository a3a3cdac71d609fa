#!/usr/bin/env bats
# TCP sockets get TCP_NODELAY on the connecting and the accepting side,
# over IPv4 and IPv6; the kernel's answer is read by the test program
# (getsockopt) and the setsockopt call is seen by strace.
# bats file_tags=sanitize

load helpers

setup () { requires strace; }

has_ipv6_loopback () {
  python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null
}

# Server then client over IPv$1, server accepting with $2; $3/$4 say which
# of them runs under the library.
connect_pair () {
  local fam=$1 how=$2 srv=$3 cli=$4 port
  if [ "$srv" = yes ]; then
    start_bg_boosted "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" tcp-server "$fam" "$how"
  else
    start_bg "$BATS_TEST_TMPDIR/srv" "$PRELOAD_SOCKETS" tcp-server "$fam" "$how"
  fi
  wait_for_line "$BATS_TEST_TMPDIR/srv" '^port '
  port=$(awk '/^port/ { print $2 }' "$BATS_TEST_TMPDIR/srv")
  if [ "$cli" = yes ]; then
    start_bg_boosted "$BATS_TEST_TMPDIR/cli" "$PRELOAD_SOCKETS" tcp-client "$fam" "$port" block
  else
    start_bg "$BATS_TEST_TMPDIR/cli" "$PRELOAD_SOCKETS" tcp-client "$fam" "$port" block
  fi
  wait_for_line "$BATS_TEST_TMPDIR/srv" holding
  wait_for_line "$BATS_TEST_TMPDIR/cli" holding
}

@test "IPv4: without the library neither side has TCP_NODELAY" {
  connect_pair 4 accept no no
  run grep -E '^accept .* nodelay 0$' "$BATS_TEST_TMPDIR/srv"
  assert_success
  run grep -E '^connect .* nodelay 0$' "$BATS_TEST_TMPDIR/cli"
  assert_success
}

@test "IPv4: connect and accept sides get TCP_NODELAY" {
  connect_pair 4 accept yes yes
  run grep -E '^accept .* nodelay 1$' "$BATS_TEST_TMPDIR/srv"
  assert_success
  run grep -E '^connect .* nodelay 1$' "$BATS_TEST_TMPDIR/cli"
  assert_success
}

@test "IPv6: connect and accept4 sides get TCP_NODELAY" {
  has_ipv6_loopback || skip "this machine has no IPv6 loopback address"
  connect_pair 6 accept4 yes yes
  run grep -E '^accept4 .* nodelay 1$' "$BATS_TEST_TMPDIR/srv"
  assert_success
  run grep -E '^connect .* nodelay 1$' "$BATS_TEST_TMPDIR/cli"
  assert_success
}

@test "strace sees the library set TCP_NODELAY, and SOCKBOOST_NODELAY=0 stops it" {
  start_bg "$BATS_TEST_TMPDIR/srv2" "$PRELOAD_SOCKETS" tcp-server 4 accept
  wait_for_line "$BATS_TEST_TMPDIR/srv2" '^port '
  port=$(awk '/^port/ { print $2 }' "$BATS_TEST_TMPDIR/srv2")
  timeout 10 strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=connect,setsockopt \
    env LD_PRELOAD="$(preload_value)" timeout 2 "$PRELOAD_SOCKETS" tcp-client 4 "$port" block || true
  run grep -E 'setsockopt\([0-9]+, SOL_TCP, TCP_NODELAY, \[1\], 4\) = 0' "$BATS_TEST_TMPDIR/trace"
  assert_success
  start_bg "$BATS_TEST_TMPDIR/srv3" "$PRELOAD_SOCKETS" tcp-server 4 accept
  wait_for_line "$BATS_TEST_TMPDIR/srv3" '^port '
  port=$(awk '/^port/ { print $2 }' "$BATS_TEST_TMPDIR/srv3")
  timeout 10 strace -f -o "$BATS_TEST_TMPDIR/trace0" -e trace=connect,setsockopt \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_NODELAY=0 timeout 2 "$PRELOAD_SOCKETS" tcp-client 4 "$port" block || true
  run grep -c TCP_NODELAY "$BATS_TEST_TMPDIR/trace0"
  assert_output 0
  run grep -c 'connect(' "$BATS_TEST_TMPDIR/trace0"
  refute_output 0
}
