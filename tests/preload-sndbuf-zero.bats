#!/usr/bin/env bats
# SOCKBOOST_SNDBUF=0 (and sockboost run --sndbuf 0) leaves the kernel's
# default send buffer on every kind of unix stream socket the library
# tunes: both ends of a socketpair, a connected socket, sockets accepted
# with accept and with accept4 (seen from outside with ss -xmp).  For a
# program that needs back-pressure at the default size (libnbd 1.14's
# tests/shutdown-flags).
# bats file_tags=sanitize

load helpers

setup () { requires ss; }

# Under PREFIX... (a command prefix: env VAR=... or sockboost run ...),
# start a socketpair holder, an accept or accept4 server (HOW) and a
# client connected to it; print the send buffers of all four sockets.
four_kinds () {
  local how=$1 d sock; shift
  # A fresh directory per call: no line of an earlier round is waited for.
  d=$(mktemp -d "$BATS_TEST_TMPDIR/round.XXXXXX")
  sock=$d/s.sock
  start_bg "$d/pair" "$@" "$PRELOAD_SOCKETS" pair stream
  local pair=$BG_PID
  start_bg "$d/srv" "$@" "$PRELOAD_SOCKETS" unix-server "$sock" "$how"
  local srv=$BG_PID
  wait_for_line "$d/srv" listening
  start_bg "$d/cli" "$@" "$PRELOAD_SOCKETS" unix-client "$sock"
  local cli=$BG_PID
  wait_for_line "$d/pair" holding
  wait_for_line "$d/srv" holding
  wait_for_line "$d/cli" holding
  echo "pair $(unix_tbs_wait "$pair" 2 | tr '\n' ' ')"
  echo "$how $(unix_tbs_wait "$srv" 1)"
  echo "connect $(unix_tbs_wait "$cli" 1)"
  kill "$pair" "$srv" "$cli"
  wait "$pair" "$srv" "$cli" 2>/dev/null || true
}

expected () {
  printf 'pair %s %s \n%s %s\nconnect %s' "$1" "$1" "$2" "$1" "$1"
}

@test "without SOCKBOOST_SNDBUF=0 all four are boosted (the checks below can fail)" {
  run four_kinds accept env LD_PRELOAD="$(preload_value)"
  assert_output "$(expected "$BOOSTED_TB" accept)"
}

@test "SOCKBOOST_SNDBUF=0: socketpair, connect and accept keep the default" {
  run four_kinds accept env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=0
  assert_output "$(expected "$DEFAULT_TB" accept)"
}

@test "SOCKBOOST_SNDBUF=0: accept4 keeps the default" {
  run four_kinds accept4 env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=0
  assert_output "$(expected "$DEFAULT_TB" accept4)"
}

@test "sockboost run --sndbuf 0: the same on all four" {
  run four_kinds accept4 "$SOCKBOOST" run --sndbuf 0 --
  assert_output "$(expected "$DEFAULT_TB" accept4)"
  run four_kinds accept "$SOCKBOOST" run --sndbuf 0 --
  assert_output "$(expected "$DEFAULT_TB" accept)"
}

@test "SOCKBOOST_SNDBUF=0: the library does not even ask (strace)" {
  requires strace
  run strace -f -e trace=setsockopt -o "$BATS_TEST_TMPDIR/trace" \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=0 \
    python3 -c 'import socket; socket.socketpair()'
  assert_success
  run grep -c SO_SNDBUF "$BATS_TEST_TMPDIR/trace"
  assert_output 0
}
