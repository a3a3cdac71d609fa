#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# How many read() calls a 2 MiB reply takes has one source, the
# benchmark: doc/benchmarks.md quotes the reads/reply column of the run
# it cites (doc/bench-results.md, socketpair at queue depth 1), and
# neither README nor the man pages quote a figure of their own.
load helpers

# The reads/reply of CONFIG in the qd 1 socketpair table of FILE.
bench_reads () {
  awk -v config="$2" '/^## socketpair/ { s = 1 } s && /^\*\*qd 1\*\*/ { q = 1 }
    q && /^\| config / { for (i = 1; i <= NF; i++) if ($i ~ /reads\/reply/) c = i }
    q && c && $2 == config { print $c; exit }' FS=' *\\| *' "$1" | tr -d ' '
}

@test "benchmarks.md's reads per 2 MiB reply are the benchmark's, and nothing else has its own" {
  local plain boosted page
  plain=$(bench_reads "$SB_ROOT/doc/bench-results.md" default)
  boosted=$(bench_reads "$SB_ROOT/doc/bench-results.md" 2M)
  [[ $plain =~ ^[0-9.]+$ && $boosted =~ ^[0-9.]+$ ]] ||
    fail "no reads/reply in doc/bench-results.md: '$plain' '$boosted'"
  page=$(tr -s ' \n' '  ' < "$SB_ROOT/doc/benchmarks.md")
  [[ $page == *"took $plain \`read()\` calls with the default buffer and $boosted with 2 MiB"* ]] ||
    fail "doc/benchmarks.md's count is not $plain and $boosted"
  run grep -nE 'reads (per|a|for) .*repl|read\(\) calls|[0-9] reads\b' \
    "$SB_ROOT/README.md" "$SB_ROOT"/doc/*.[17]
  assert_output ""
}
