#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# `sockboost bench --quick` runs every workload and writes the markdown
# tables, a CSV of every run and the plots.  Only the shape of the output is
# checked, never a time or a ratio.

load helpers

CSV_HEADER=workload,case,config,rep,status,seconds,user,sys,bytes,metric,value,sndbuf,reads_per_reply,tuned,error

setup_file () {
  BENCH_OUT=$BATS_FILE_TMPDIR/out
  export BENCH_OUT
  local status=0
  "$SB_ROOT/tools/sockboost" bench --quick --data-size 32M --out "$BENCH_OUT" \
    > "$BATS_FILE_TMPDIR/stdout" 2> "$BATS_FILE_TMPDIR/stderr" || status=$?
  echo "$status" > "$BATS_FILE_TMPDIR/status"
}

@test "bench --quick: succeeds with no failed run and no skipped workload" {
  cat "$BATS_FILE_TMPDIR/stderr"
  [ "$(cat "$BATS_FILE_TMPDIR/status")" -eq 0 ]
  run grep -E 'FAILED|skipped' "$BATS_FILE_TMPDIR/stderr"
  assert_failure
}

@test "bench --quick: one table per workload, QEMU-style columns" {
  local w
  for w in socketpair sbnbd qemu nbdcopy tcp overhead; do
    grep -q "^## $w: " "$BENCH_OUT/results.md" || fail "no table for $w"
  done
  run grep -c '^| config | time (s) | user (s) | sys (s) | ' "$BENCH_OUT/results.md"
  assert_output 15
  grep -qE '^\| default \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|( [0-9.]+ \|)? 1\.00x \|$' \
    "$BENCH_OUT/results.md"
  # The same tables go to stdout.
  grep -q '^| config | time (s) | user (s) | sys (s) | ' "$BATS_FILE_TMPDIR/stdout"
}

@test "bench --quick: fio's fixed-duration runs get no time column" {
  grep -A2 '^\*\*fio 4K randread' "$BENCH_OUT/results.md" |
    grep -qx '| config | user (s) | sys (s) | IOPS | vs default |'
}

@test "bench --quick: image copies over TCP and TLS beside the reference" {
  local copier image tls
  for copier in 'qemu-img convert' nbdcopy; do
    for image in 'sparse raw image' 'ext4 qcow2 image'; do
      for tls in '' ', TLS'; do
        grep -A5 -xF "**$copier, $image$tls**" "$BENCH_OUT/results.md" |
          grep -qE '^\| library \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \| [0-9]+% \|$' ||
          fail "no library row for $copier, $image$tls"
      done
    done
  done
  grep -qx '| config | user (s) | sys (s) | s per copy | vs default | speed vs reference |' \
    "$BENCH_OUT/results.md"
  # 8 copies x (default, library, reference) + fio and naive write x 2.
  run grep -c '^tcp,.*,ok,' "$BENCH_OUT/runs.csv"
  assert_output 28
}

@test "bench --quick: QEMU to QEMU transfers, plain, with the library and with host mode, and their plot" {
  local direction image tls
  for direction in push 'pull, mirror' 'pull, qemu-img convert'; do
    for image in 'fragmented raw' 'ext4 qcow2' 'allocated raw'; do
      for tls in '' ', TLS'; do
        grep -A5 -E "^\*\*$direction, $image [0-9]+ MiB$tls\*\*$" "$BENCH_OUT/results.md" |
          grep -qE '^\| library \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \|$' ||
          fail "no library row for $direction, $image$tls"
      done
    done
  done
  # 18 transfers x (default, library, and as root with sockboost host
  # built, host: benchlib/hostmode.py).
  local configs=2
  if [ "$(id -u)" -eq 0 ] && [ -x "$SB_BUILD/tools/sb-host" ]; then
    configs=3
    grep -A6 -E '^\*\*pull, mirror, fragmented raw [0-9]+ MiB\*\*$' "$BENCH_OUT/results.md" |
      grep -qE '^\| host \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \|$' ||
      fail "no host row for pull, mirror, fragmented raw"
  fi
  run grep -c '^migration,.*,ok,' "$BENCH_OUT/runs.csv"
  assert_output $((18 * configs))
  run head -c 4 "$BENCH_OUT/migration.png"
  assert_output --partial PNG
  grep -q 'pull, qemu-img convert, ext4 qcow2' "$BENCH_OUT/migration.svg"
}

@test "bench --quick: nothing refers to internal work items" {
  run grep -inE '\bissues? [0-9#]|^## targets' "$BENCH_OUT/results.md"
  assert_failure
  grep -q '^## summary (smoke test: one run each' "$BENCH_OUT/results.md"
}

@test "bench --quick: CSV holds every run, with the expected columns" {
  run head -n 1 "$BENCH_OUT/runs.csv"
  assert_output "$CSV_HEADER"
  # socketpair: 2 cases x 3 buffers, 1 repeat.
  run grep -c '^socketpair,' "$BENCH_OUT/runs.csv"
  assert_output 6
  run grep -vc ',ok,' "$BENCH_OUT/runs.csv"
  assert_output 1
  # One progress line on stderr per run.
  [ "$(grep -c '^bench: \[[0-9]*/[0-9]*\] ' "$BATS_FILE_TMPDIR/stderr")" -eq \
    "$(($(wc -l < "$BENCH_OUT/runs.csv") - 1))" ]
}

@test "bench --quick: throughput plot as PNG and SVG" {
  run head -c 4 "$BENCH_OUT/throughput.png"
  assert_output --partial PNG
  grep -q '<svg' "$BENCH_OUT/throughput.svg"
  grep -q 'socketpair qd 1' "$BENCH_OUT/throughput.svg"
}
