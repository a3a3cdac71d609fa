#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost bench run as root never writes through a link planted in its
# output directory: it refuses a directory owned by another user (whose
# owner could plant one at any time) saying why, refuses an --out that is
# itself a link, and in a directory of its own replaces links at
# runs.csv, results.md and the plots' names instead of following them.
load helpers
bats_require_minimum_version 1.5.0

# The files bench writes, each planted as a link to a target of its own.
NAMES=(runs.csv results.md throughput.dat throughput.png throughput.svg)

setup () {
  [ "$(id -u)" -eq 0 ] || skip "the planted links matter when bench runs as root, which this process is not"
  TARGETS=$BATS_TEST_TMPDIR/targets
  mkdir "$TARGETS"
}

# Plant a link at each name in DIR, to a root-owned file in TARGETS.
plant_links () {
  local name
  for name in "${NAMES[@]}"; do
    echo "root's own $name" >"$TARGETS/$name"
    ln -s "$TARGETS/$name" "$1/$name"
  done
}

assert_targets_untouched () {
  local name
  for name in "${NAMES[@]}"; do
    [ "$(cat "$TARGETS/$name")" = "root's own $name" ] || fail "$name's target was written"
  done
  run ls -A "$TARGETS"
  assert_equal "$(wc -l <<<"$output")" "${#NAMES[@]}"
}

bench_quick () {
  run --separate-stderr "$SB_ROOT/tools/bench" --quick --workloads socketpair \
    --data-size 16M "$@"
}

@test "bench as root refuses an output directory owned by nobody, and writes through none of its links" {
  local work=$BATS_TEST_TMPDIR/work
  mkdir -p "$work/bench-results"
  plant_links "$work/bench-results"
  chown -R -h nobody "$work"
  # The default --out, relative to a directory nobody owns.
  cd "$work"
  bench_quick
  assert_equal "$status" 1
  [[ $stderr == "sockboost: bench: bench-results: the directory is owned by nobody (uid 65534), not by root (uid 0): refusing to write there"* ]] ||
    fail "stderr: $stderr"
  assert_targets_untouched
  for name in "${NAMES[@]}"; do
    [ -L "bench-results/$name" ] || fail "$name was replaced"
  done
  run ls -A bench-results
  assert_equal "$(wc -l <<<"$output")" "${#NAMES[@]}"
}

@test "bench refuses an --out that is a link, even to a directory of root's" {
  mkdir "$BATS_TEST_TMPDIR/real"
  ln -s real "$BATS_TEST_TMPDIR/out"
  bench_quick --out "$BATS_TEST_TMPDIR/out"
  assert_equal "$status" 1
  [[ $stderr == *"/out: a symbolic link: refusing to follow it"* ]] || fail "stderr: $stderr"
  run ls -A "$BATS_TEST_TMPDIR/real"
  assert_output ""
}

@test "bench in a directory of its own replaces planted links with its files" {
  requires gnuplot
  local out=$BATS_TEST_TMPDIR/out name
  mkdir "$out"
  plant_links "$out"
  bench_quick --out "$out"
  assert_success
  assert_targets_untouched
  for name in "${NAMES[@]}"; do
    [ -f "$out/$name" ] && [ ! -L "$out/$name" ] || fail "$name is not a file of bench's"
  done
  run head -n 1 "$out/runs.csv"
  assert_output --partial workload,case,config
  # No temporary name left behind.
  run ls -A "$out"
  assert_equal "$(wc -l <<<"$output")" "${#NAMES[@]}"
}
