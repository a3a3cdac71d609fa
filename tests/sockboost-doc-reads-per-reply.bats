#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# How many read() calls a 2 MiB reply takes has one source, the
# benchmark: README quotes the reads/reply column of the run it cites
# (doc/bench-results.md, socketpair at queue depth 1), and the man pages
# quote no figure of their own.
load helpers

# The reads/reply of CONFIG in the qd 1 socketpair table of FILE.
bench_reads () {
  awk -v config="$2" '/^## socketpair/ { s = 1 } s && /^\*\*qd 1\*\*/ { q = 1 }
    q && /^\| config / { for (i = 1; i <= NF; i++) if ($i ~ /reads\/reply/) c = i }
    q && c && $2 == config { print $c; exit }' FS=' *\\| *' "$1" | tr -d ' '
}

@test "README's reads per 2 MiB reply are the benchmark's, and no man page has its own" {
  local plain boosted readme
  plain=$(bench_reads "$SB_ROOT/doc/bench-results.md" default)
  boosted=$(bench_reads "$SB_ROOT/doc/bench-results.md" 2M)
  [[ $plain =~ ^[0-9.]+$ && $boosted =~ ^[0-9.]+$ ]] ||
    fail "no reads/reply in doc/bench-results.md: '$plain' '$boosted'"
  readme=$(tr -s ' \n' '  ' < "$SB_ROOT/README.md")
  [[ $readme == *"took $plain \`read()\` calls with the default buffer and $boosted with 2 MiB"* ]] ||
    fail "README's first count is not $plain and $boosted"
  [[ $readme == *"reply, header and payload read as one buffer: $plain with the default buffer and $boosted with 2 MiB"* ]] ||
    fail "README's Results count is not $plain and $boosted"
  run grep -nE 'reads (per|a|for) .*repl|read\(\) calls|[0-9] reads\b' "$SB_ROOT"/doc/*.[17]
  assert_output ""
}
