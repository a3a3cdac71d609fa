#!/usr/bin/env bats
# sockboost run reports bad usage (2), missing commands (127) and
# unexecutable ones (126) as a shell would.
bats_require_minimum_version 1.5.0
load helpers

@test "no command is a usage error" {
  run "$SOCKBOOST" run --sndbuf 1M
  assert_failure 2
  assert_output --partial "no command given"
}

@test "an unknown option is a usage error" {
  run "$SOCKBOOST" run --frobnicate -- true
  assert_failure 2
  assert_output --partial "unknown option '--frobnicate'"
}

@test "an unknown subcommand is a usage error" {
  run "$SOCKBOOST" frobnicate
  assert_failure 2
  assert_output --partial "unknown command 'frobnicate'"
}

@test "no subcommand at all is a usage error" {
  run "$SOCKBOOST"
  assert_failure 2
}

@test "an option missing its value is a usage error" {
  run "$SOCKBOOST" run --sndbuf
  assert_failure 2
  assert_output --partial "needs a value"
}

@test "an option followed by '--' or an empty value is missing its value, not a bad one" {
  local option
  for option in --sndbuf --scope --log-file; do
    run "$SOCKBOOST" run "$option" -- true
    assert_failure 2
    assert_output --partial "run: option '$option' needs a value"
    run "$SOCKBOOST" run "$option" '' true
    assert_failure 2
    assert_output --partial "run: option '$option' needs a value"
  done
}

@test "bad sizes are usage errors that name the size and, in the library's words, the accepted forms" {
  local bad
  for bad in abc -5 2Q 1.5M 99999999999999 2G 1073741825 1025M 1T '4M ' K OFF; do
    run "$SOCKBOOST" run --sndbuf "$bad" -- true
    assert_failure 2
    assert_output --partial "invalid --sndbuf '$bad': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off"
  done
}

@test "a bad scope is a usage error" {
  run "$SOCKBOOST" run --scope some -- true
  assert_failure 2
  assert_output --partial "invalid --scope 'some'"
}

@test "a command not on PATH exits 127 with the shell's message" {
  run -127 "$SOCKBOOST" run -- sockboost-no-such-command arg
  assert_failure 127
  assert_output "sockboost: sockboost-no-such-command: command not found"
}

@test "a missing path exits 127" {
  run -127 "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/missing"
  assert_failure 127
  assert_output --partial "missing: command not found"
}

@test "a file that is not executable exits 126" {
  printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/plain"
  chmod 0644 "$BATS_TEST_TMPDIR/plain"
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/plain"
  assert_failure 126
  assert_output --partial "Permission denied"
  PATH=$BATS_TEST_TMPDIR:$PATH run "$SOCKBOOST" run -- plain
  assert_failure 126
}

@test "a directory exits 126" {
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR"
  assert_failure 126
}

@test "a missing library is an error, not a silent plain run" {
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/none.so run "$SOCKBOOST" run -- true
  assert_failure 1
  assert_output --partial "library not found: $BATS_TEST_TMPDIR/none.so"
}
