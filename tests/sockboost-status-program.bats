#!/usr/bin/env bats
# sockboost status names the NBD program a process runs, by its
# executable, with the version it prints and what the library changes
# for it under that process's own SOCKBOOST_* settings (not status's).
bats_require_minimum_version 1.5.0
load helpers

# A copy of sleep named NAME: an "NBD program" that prints sleep's version.
fake_nbd_program () {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$(type -P sleep)" "$BATS_TEST_TMPDIR/bin/$1"
}

@test "the program's line follows the process's settings" {
  requires jq
  local version
  fake_nbd_program nbdkit
  version=$(sleep --version | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
  SOCKBOOST_SNDBUF=1M "$BATS_TEST_TMPDIR/bin/nbdkit" 30 &
  kill_at_teardown $!
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" status $!
  assert_success
  assert_line "  nbdkit $version: what the library changes for it"
  assert_line "    unix: raises the send buffer to tb 2097152: nbdkit leaves the default"
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" status --json $!
  jq -e --arg v "$version" '.program.name == "nbdkit" and .program.version == $v
        and (.program.unix | startswith("raises the send buffer to tb 2097152"))' <<<"$output"
}

@test "a process that runs no NBD program has no program line" {
  requires jq
  sleep 30 &
  kill_at_teardown $!
  run "$SOCKBOOST" status $!
  assert_success
  refute_output --partial "what the library changes"
  run "$SOCKBOOST" status --json $!
  [ "$(jq -r .program <<<"$output")" = null ]
}
