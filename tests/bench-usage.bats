#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# `sockboost bench` with bad arguments prints one error line and a Try
# line and exits 2, before running anything.

load helpers
bats_require_minimum_version 1.5.0

bench_rejects () {
  run --separate-stderr "$SB_ROOT/tools/bench" --out "$BATS_TEST_TMPDIR/out" "$@"
  assert_equal "$status" 2
  [[ $stderr == *$'\n'"Try 'sockboost bench --help' for more information." ]] || fail "no Try line on stderr: $stderr"
  [ "$(wc -l <<<"$stderr")" -eq 2 ] || fail "not one error line and one Try line: $stderr"
  [ ! -e "$BATS_TEST_TMPDIR/out" ] || fail "it started to run"
}

@test "bench: unknown workload is a usage error" {
  bench_rejects --workloads socketpair,nosuch
}

@test "bench: malformed buffer size is a usage error" {
  bench_rejects --sizes default,12Q
}

@test "bench: zero repeats is a usage error" {
  bench_rejects --repeat 0
}

@test "bench: unknown option is a usage error" {
  bench_rejects --frobnicate
}

@test "bench: --help lists the options and exits 0" {
  run "$SB_ROOT/tools/bench" --help
  assert_success
  assert_output --partial --quick
  assert_output --partial --workloads
  assert_output --partial --repeat
}
