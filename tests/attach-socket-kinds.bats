#!/usr/bin/env bats
# sockboost attach tunes what the library tunes and nothing else: unix
# stream sockets get the send buffer, TCP sockets (connected and
# listening) TCP_NODELAY; datagram, seqpacket, UDP and unconnected
# sockets are left as they were.  A TCP connection accepted later
# inherits TCP_NODELAY from the tuned listener.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  start_holder
}

@test "each kind of socket gets what the library would give it" {
  run "$SOCKBOOST" attach -v "$HOLDER_PID"
  assert_success
  assert_equal "$(grep -c 'unix connected sndbuf 212992 -> 4194304$' <<<"$output")" 2
  assert_equal "$(grep -c 'tcp connected nodelay 0 -> 1$' <<<"$output")" 2
  assert_line --regexp "^sockboost\[python3 $HOLDER_PID\]: fd [0-9]+ tcp listening nodelay 0 -> 1\$"
  assert_equal "$(grep -c ' -> ' <<<"$output")" 5

  run holder_says report
  assert_line "unix-stream-a sndbuf=$BOOSTED_TB nodelay=-"
  assert_line "unix-stream-b sndbuf=$BOOSTED_TB nodelay=-"
  assert_line "unix-dgram sndbuf=$DEFAULT_TB nodelay=-"
  assert_line "unix-seqpacket sndbuf=$DEFAULT_TB nodelay=-"
  assert_line --regexp "^tcp-listener sndbuf=[0-9]+ nodelay=1\$"
  assert_line --regexp "^tcp-client sndbuf=[0-9]+ nodelay=1\$"
  assert_line --regexp "^tcp-server sndbuf=[0-9]+ nodelay=1\$"
  assert_line --regexp "^tcp-unconnected sndbuf=[0-9]+ nodelay=0\$"
  assert_line "udp sndbuf=$DEFAULT_TB nodelay=-"
}

@test "a TCP connection accepted after attach inherits TCP_NODELAY" {
  run holder_says accept
  assert_line --regexp "^tcp-accepted sndbuf=[0-9]+ nodelay=0\$"
  run "$SOCKBOOST" attach "$HOLDER_PID"
  assert_success
  run holder_says accept
  assert_line --regexp "^tcp-accepted sndbuf=[0-9]+ nodelay=1\$"
}

@test "a second attach finds nothing left to change, and says what it found" {
  run "$SOCKBOOST" attach "$HOLDER_PID"
  assert_success
  run "$SOCKBOOST" attach "$HOLDER_PID"
  assert_success
  assert_output "sockboost[python3 $HOLDER_PID]: nothing to change: 1 socket not connected yet (use --watch), 2 unix sockets whose send buffer is as large as attach makes it already, 3 TCP sockets with TCP_NODELAY already set, 5 sockets of a kind not tuned (neither unix stream nor TCP)"
  SOCKBOOST_SNDBUF=0 run "$SOCKBOOST" attach --no-nodelay "$HOLDER_PID"
  assert_success
  assert_output "sockboost[python3 $HOLDER_PID]: nothing to change: 1 socket not connected yet (use --watch), 5 sockets whose tuning is turned off, 5 sockets of a kind not tuned (neither unix stream nor TCP)"
}
