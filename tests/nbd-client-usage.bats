#!/usr/bin/env bats
# Command-line misuse exits 2 with one error line and a pointer to
# --help; --help and --version exit 0.
# bats file_tags=sanitize

load helpers

TRY="Try 'sbnbd-client --help' for more information."

# Exit 2 with exactly: "sbnbd-client: MESSAGE" and the Try line.
bad () {
  local message=$1
  shift
  run cl_client "$@"
  assert_failure 2
  assert_equal "${#lines[@]}" 2
  assert_line -n 0 "sbnbd-client: $message"
  assert_line -n 1 "$TRY"
}

@test "--help lists the commands and the naive switches" {
  run cl_client --help
  assert_success
  assert_output --partial "read URI [FILE|-]"
  assert_output --partial "--split-writes"
  assert_output --partial "--no-nodelay"
  assert_output --partial "--verbose"
}

@test "--version prints the version" {
  run cl_client --version
  assert_success
  assert_output --regexp "^sbnbd-client [0-9]+\.[0-9]+"
}

@test "no command, an unknown command, missing operands" {
  bad "no command given"
  bad "unknown command 'frobnicate' (expected info, read, write, verify or map)" \
    frobnicate nbd://h/
  bad "'write' takes a source (FILE, pattern or zero) and a URI" write nbd://h/
  bad "'read' takes URI and an optional FILE" read
}

@test "unknown options and missing arguments" {
  bad "unknown or ambiguous option '--bogus'" --bogus read nbd://h/
  bad "unknown option '-x'" -x read nbd://h/
  bad "option '--request-size' needs an argument" read nbd://h/ --request-size
  bad "option '--json' takes no argument" --json=yes read nbd://h/
}

@test "sizes list the suffixes; counts are counts, not sizes" {
  bad "--request-size 33M: out of range (1 to 32M)" --request-size 33M read nbd://h/
  bad "--request-size 2Q: not a size: expected a size such as 2M or 4194304 (K or M; from 1 to 32M)" \
    --request-size 2Q read nbd://h/
  bad "--offset -1: not a size: expected a size such as 2M or 4194304 (K, M, G or T; at most 9223372036854775807)" \
    --offset -1 read nbd://h/
  bad "--queue-depth 0: out of range (1 to 64)" --queue-depth 0 read nbd://h/
  bad "--queue-depth 1K: not a number" --queue-depth 1K read nbd://h/
  bad "--connections 1x: not a number" --connections 1x read nbd://h/
  bad "--connections 17: out of range (1 to 16)" --connections 17 read nbd://h/
}
