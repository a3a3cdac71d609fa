#!/usr/bin/env bats
# SOCKBOOST_SNDBUF=0 leaves the kernel's default send buffer on every kind
# of unix stream socket the library tunes: both ends of a socketpair, a
# connected socket, sockets accepted with accept and with accept4 (seen
# from outside with ss -xmp).  For a program that needs back-pressure at
# the default size (libnbd 1.14's tests/shutdown-flags).  sockboost run
# --sndbuf 0: sockboost-run-sndbuf-zero.bats.
# bats file_tags=sanitize

load helpers

setup () { requires ss; }

@test "without SOCKBOOST_SNDBUF=0 all four are boosted (the checks below can fail)" {
  run unix_tbs_four accept env LD_PRELOAD="$(preload_value)"
  assert_output "$(unix_tbs_four_all "$BOOSTED_TB" accept)"
}

@test "SOCKBOOST_SNDBUF=0: socketpair, connect and accept keep the default" {
  run unix_tbs_four accept env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=0
  assert_output "$(unix_tbs_four_all "$DEFAULT_TB" accept)"
}

@test "SOCKBOOST_SNDBUF=0: accept4 keeps the default" {
  run unix_tbs_four accept4 env LD_PRELOAD="$(preload_value)" SOCKBOOST_SNDBUF=0
  assert_output "$(unix_tbs_four_all "$DEFAULT_TB" accept4)"
}
