#!/usr/bin/env bats
# sockboost run --sndbuf 0 leaves the kernel's default send buffer on
# every kind of unix stream socket the library tunes (ss -xmp), and the
# library does not even ask (strace).  (Not in the sanitized pass: the
# sockboost script is not built with ASan.)

load helpers

setup () { requires ss; }

@test "sockboost run --sndbuf 0: the default on all four kinds" {
  run unix_tbs_four accept4 "$SOCKBOOST" run --sndbuf 0 --
  assert_output "$(unix_tbs_four_all "$DEFAULT_TB" accept4)"
  run unix_tbs_four accept "$SOCKBOOST" run --sndbuf 0 --
  assert_output "$(unix_tbs_four_all "$DEFAULT_TB" accept)"
}

@test "without --sndbuf 0 the same sockets are boosted (the check above can fail)" {
  run unix_tbs_four accept4 "$SOCKBOOST" run --
  assert_output "$(unix_tbs_four_all "$BOOSTED_TB" accept4)"
}

@test "sockboost run --sndbuf 0: no SO_SNDBUF request at all (strace)" {
  requires strace
  run strace -f -e trace=setsockopt -o "$BATS_TEST_TMPDIR/trace" \
    "$SOCKBOOST" run --sndbuf 0 -- python3 -c 'import socket; socket.socketpair()'
  assert_success
  run grep -c SO_SNDBUF "$BATS_TEST_TMPDIR/trace"
  assert_output 0
  run strace -f -e trace=setsockopt -o "$BATS_TEST_TMPDIR/trace" \
    "$SOCKBOOST" run -- python3 -c 'import socket; socket.socketpair()'
  run grep -c SO_SNDBUF "$BATS_TEST_TMPDIR/trace"
  assert_output 2
}
