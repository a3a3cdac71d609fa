#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The summary of sockboost bench holds each goal's figure beside the range
# of its runs; a --quick run (one run each, tiny sizes) says it is a smoke
# test and shows its figures without the goals, so that one noisy run is
# never read as a result.  Only the shape is checked, never a figure.
load helpers
bats_require_minimum_version 1.5.0

@test "bench --quick: says it is a smoke test, and its summary has no goal column" {
  local out=$BATS_TEST_TMPDIR/out
  run --separate-stderr "$SB_ROOT/tools/bench" --quick --workloads socketpair,overhead \
    --data-size 16M --out "$out"
  assert_success
  assert_line --regexp '^\*\*A smoke test\.\*\* --quick runs each configuration once'
  assert_line '## summary (smoke test: one run each, not to be compared with the goals)'
  assert_line '| what | measured |'
  assert_line --regexp '^\| raw socketpair, 2M vs default, qd 1 \| [0-9.]+x \|$'
  assert_line --regexp '^\| library cost, 1-byte send\(\) on a socketpair \| [-+][0-9.]+% \|$'
  refute_output --partial '| goal |'
  refute_output --partial 'measured against the goals'
  # results.md says the same.
  grep -q '^\*\*A smoke test\.\*\*' "$out/results.md"
  run grep -c '| goal |' "$out/results.md"
  assert_output 0
}

@test "bench: a measured run's summary gives each goal's figure with the range of its runs" {
  local out=$BATS_TEST_TMPDIR/out
  run --separate-stderr "$SB_ROOT/tools/bench" --workloads socketpair,overhead --sizes 2M \
    --repeat 3 --data-size 16M --out "$out"
  assert_success
  assert_line '## summary: measured against the goals'
  assert_line '| what | goal | measured | range of the runs |'
  assert_line --regexp '^\| raw socketpair, 2M vs default, qd 4 \| about 2\.9x \| [0-9.]+x \| [0-9.]+x to [0-9.]+x \|$'
  # A cost, lowest first.
  assert_line --regexp '^\| library cost, 1-byte write\(\) to /dev/null \| <= 3% \| [-+][0-9.]+% \| [-+][0-9.]+% to [-+][0-9.]+% \|$'
  local lo hi
  [[ $(grep '^| library cost, 1-byte write' <<<"$output") =~ \|\ ([-+][0-9.]+)%\ to\ ([-+][0-9.]+)%\ \|$ ]]
  lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
  awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo <= hi) }' || fail "range $lo to $hi is not lowest first"
  refute_output --partial 'smoke test'
}
