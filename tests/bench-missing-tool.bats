#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A workload whose tools are missing is reported as skipped, with the
# reason, and the others still run.

load helpers

@test "bench: a workload whose tool is missing is skipped with the reason" {
  local bin=$BATS_TEST_TMPDIR/bin out=$BATS_TEST_TMPDIR/out
  mkdir "$bin"
  # A PATH holding python3 only: fio, qemu-nbd and the rest are missing.
  ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$bin/python3"
  run env PATH="$bin" "$SB_ROOT/tools/bench" --quick --workloads tcp,overhead \
    --out "$out"
  assert_success
  # Every missing program is named, not only the first.
  assert_line --regexp '^bench: tcp skipped: fio, qemu-nbd, qemu-img, nbdcopy, nbdkit, .*openssl are not installed$'
  grep -qE '^skipped: fio, qemu-nbd, .* are not installed$' "$out/results.md"
  grep -q '^## overhead: ' "$out/results.md"
  run grep -c '^overhead,.*,ok,' "$out/runs.csv"
  assert_output 4
}
