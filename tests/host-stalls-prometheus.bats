#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# host mode's counts as Prometheus sees them, end to end: qemu-nbd 7.2
# stalls under the counting alone (enable --observe; the copy of
# host-stalls-qemu-nbd.bats), `sockboost metrics --output` writes the
# textfile collector's file, the real prometheus-node-exporter serves it
# on 127.0.0.1 of the test's network namespace, and curl's scrape has
# the figures `host status --json` gives, with HELP and TYPE lines.
# While the file is rewritten over and over, every scrape reads it whole
# (the collector reports a file it cannot parse as
# node_textfile_scrape_error 1) and no temporary file is left.

load helpers

@test "host metrics: the node exporter's scrape has the figures of host status --json" {
  requires qemu-img qemu-nbd jq curl prometheus-node-exporter
  qemu_at_least 8.0 && sb_skip "qemu-nbd $QEMU_VERSION sets TCP_NODELAY itself: no stall to count"
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img dir=$BATS_TEST_TMPDIR/textfile port scrape i
  make_sparse_image "$img" 2
  mkdir "$dir"
  qt_private_netns
  hm_enable --observe >/dev/null
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  qemu_img_dd_tcp "$QEMU_TCP_PORT" "$BATS_TEST_TMPDIR/out.img" || fail "the copy failed"

  run "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --output "$dir/sockboost.prom"
  assert_success
  port=$(qt_netns python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # Not through qt_netns: a function run in the background is a shell of
  # its own, and the pid killed at teardown must be the exporter's.
  "${QT_NETNS[@]}" prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
    --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$dir" >"$BATS_TEST_TMPDIR/exporter.log" 2>&1 3>&- &
  kill_at_teardown "$!"
  for ((i = 0; i < 100; i++)); do
    scrape=$(qt_netns curl -sf "http://127.0.0.1:$port/metrics") && break
    sleep 0.1
  done
  [ -n "$scrape" ] || fail "no scrape from the node exporter: $(cat "$BATS_TEST_TMPDIR/exporter.log")"

  run hm_host status --json
  assert_success
  local json=$output stalls seconds sent
  stalls=$(jq '[.tuned[] | select(.program == "qemu-nbd" and .uid == 0)][0].stalls' <<<"$json")
  seconds=$(jq '[.tuned[] | select(.program == "qemu-nbd" and .uid == 0)][0].stall_seconds' <<<"$json")
  sent=$(jq '[.tuned[] | select(.program == "qemu-nbd" and .uid == 0)][0].bytes_sent' <<<"$json")
  echo "status: $stalls stalls, $seconds s, $sent bytes sent; scrape:" >&3
  grep '^sockboost_host_.*program="qemu-nbd"' <<<"$scrape" >&3
  [ "$stalls" -ge 10 ] || fail "too few stalls to compare: $json"
  [ "$(hm_metric 'sockboost_host_stalls_total{program="qemu-nbd",uid="0"}' "$scrape")" = "$stalls" ] ||
    fail "the scrape's stalls are not status's $stalls: $scrape"
  awk -v a="$(hm_metric 'sockboost_host_stall_seconds_total{program="qemu-nbd",uid="0"}' "$scrape")" \
    -v b="$seconds" 'BEGIN { d = a - b; exit !(a != "" && d < 1e-6 && d > -1e-6) }' ||
    fail "the scrape's stall seconds are not status's $seconds: $scrape"
  # The exporter writes large values as floats (1.23e+06): compared as numbers.
  awk -v a="$(hm_metric 'sockboost_host_sent_bytes_total{program="qemu-nbd",uid="0"}' "$scrape")" \
    -v b="$sent" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' ||
    fail "the scrape's bytes sent are not status's $sent: $scrape"
  [ "$(hm_metric sockboost_host_counting "$scrape")" = 1 ] || fail "counting is not 1: $scrape"
  [ "$(hm_metric sockboost_host_tuning "$scrape")" = 0 ] || fail "observing, tuning is not 0: $scrape"
  grep -qx '# TYPE sockboost_host_stalls_total counter' <<<"$scrape" || fail "no TYPE line: $scrape"
  grep -q '^# HELP sockboost_host_stall_seconds_total ' <<<"$scrape" || fail "no HELP line: $scrape"

  # Rewritten 30 times while scraped: never read in part.
  (for ((i = 0; i < 30; i++)); do
     "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --output "$dir/sockboost.prom" || exit 1
   done) &
  local writer=$! scrapes=0
  while kill -0 "$writer" 2>/dev/null; do
    scrape=$(qt_netns curl -sf "http://127.0.0.1:$port/metrics") || fail "a scrape failed"
    [ "$(hm_metric node_textfile_scrape_error "$scrape")" = 0 ] ||
      fail "the collector read a broken file: $scrape"
    [ "$(hm_metric 'sockboost_host_stalls_total{program="qemu-nbd",uid="0"}' "$scrape")" = "$stalls" ] ||
      fail "a scrape lacks the stalls: $scrape"
    scrapes=$((scrapes + 1))
  done
  wait "$writer" || fail "sockboost metrics failed while rewriting"
  echo "$scrapes scrapes while the file was rewritten 30 times" >&3
  [ "$scrapes" -ge 3 ] || fail "only $scrapes scrapes during the rewrites"
  [ "$(ls -A "$dir")" = sockboost.prom ] || fail "left in the directory: $(ls -A "$dir")"
}

@test "host metrics: --output never writes through a planted link" {
  hm_setup
  local dir=$BATS_TEST_TMPDIR/textfile target=$BATS_TEST_TMPDIR/target
  mkdir "$dir" "$target"
  echo precious >"$target/file"
  # The file's name a link: replaced, not followed.
  ln -s "$target/file" "$dir/sockboost.prom"
  run "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --output "$dir/sockboost.prom"
  assert_success
  [ "$(cat "$target/file")" = precious ] || fail "written through the link"
  [ ! -L "$dir/sockboost.prom" ] || fail "the link is still there"
  grep -q '^sockboost_host_counting 0$' "$dir/sockboost.prom" || fail "not the metrics: $(cat "$dir/sockboost.prom")"
  # A directory on the way a link: refused, nothing written.
  ln -s "$target" "$BATS_TEST_TMPDIR/linkdir"
  run "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --output "$BATS_TEST_TMPDIR/linkdir/sockboost.prom"
  assert_failure 1
  assert_output --partial "symbolic link"
  [ "$(ls -A "$target")" = file ] || fail "written into the link's target: $(ls -A "$target")"
}
