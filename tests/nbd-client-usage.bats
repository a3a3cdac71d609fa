#!/usr/bin/env bats
# Command-line misuse exits 2 with a hint; --help and --version exit 0.
# bats file_tags=sanitize

load helpers

@test "--help lists the commands and the naive switches" {
  run cl_client --help
  assert_success
  assert_output --partial "read URI [FILE|-]"
  assert_output --partial "--split-writes"
  assert_output --partial "--no-nodelay"
}

@test "--version prints the version" {
  run cl_client --version
  assert_success
  assert_output --regexp "^sbnbd-client [0-9]+\.[0-9]+"
}

@test "no command, an unknown command, missing operands" {
  run cl_client
  assert_failure 2
  assert_output --partial "no command given"
  run cl_client frobnicate nbd://h/
  assert_failure 2
  assert_output --partial "unknown command 'frobnicate'"
  run cl_client write nbd://h/
  assert_failure 2
  run cl_client read
  assert_failure 2
}

@test "out-of-range options" {
  run cl_client --request-size 33M read nbd://h/
  assert_failure 2
  assert_output --partial "--request-size: '33M' is not a size"
  run cl_client --queue-depth 0 read nbd://h/
  assert_failure 2
  run cl_client --connections 1x read nbd://h/
  assert_failure 2
  run cl_client --bogus read nbd://h/
  assert_failure 2
}
