#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A running domain, started plain, boosted without a restart: sockboost
# attach --watch follows its QEMU and tunes the NBD listener a pull
# backup opens later (every connection accepted after that inherits
# TCP_NODELAY); qemu-img dd copies the backup at least 10x faster than
# a twin domain's (medians of interleaved rounds), the same data.
# A client that connects before attach's next scan (100 ms by default)
# gets its own connection tuned at that scan instead: only the requests
# before it may stall.

load helpers

setup_file () {
  lv_start attach
  lv_define_twins 8 plain attached
}

teardown_file () {
  lv_stop
}

# Fresh QEMUs for each test, none of their sockets tuned yet; attach
# --watch follows the second at its default interval, past its first
# scan (which tunes the monitor's unix connection).
setup () {
  use_attach_helper
  lv_virsh start plain
  lv_virsh start attached
  cleanup_push "lv_virsh destroy plain; lv_virsh destroy attached"
  QEMU_PID=$(lv_qemu_pid attached)
  WATCH_OUT=$BATS_TEST_TMPDIR/watch.out
  "$SOCKBOOST" attach --watch "$QEMU_PID" >"$WATCH_OUT" 2>&1 3>&- &
  kill_at_teardown $!
  wait_for_line "$WATCH_OUT" "unix connected sndbuf"
}

@test "attach --watch before backup-begin: the listener is tuned, >= 10x faster" {
  lv_backup_begin plain 10809
  lv_backup_begin attached 10810
  local start=$EPOCHREALTIME
  wait_for_line "$WATCH_OUT" "^sockboost\\[qemu-system-x86 $QEMU_PID\\]: fd [0-9]+ tcp listening nodelay 0 -> 1\$"
  echo "listener tuned $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms after backup-begin returned" >&3
  lv_time_backup_rounds 3 plain 10809 attached 10810
  echo "backup copy over TCP: $(times_and_acks LV_PLAIN_TIMES) plain, $(times_and_acks LV_BOOSTED_TIMES) attached" >&3
  assert_speedup "$(median_of "${LV_PLAIN_TIMES[@]}")" "$(median_of "${LV_BOOSTED_TIMES[@]}")" 10
}

@test "a client connecting at once, before attach's next scan: still >= 5x" {
  lv_backup_begin plain 10809
  lv_backup_begin attached 10810
  local at_once=() at_once_ACKS=() plain=() plain_ACKS=()
  lv_time_backup_copy at_once attached 10810
  # Every plain copy stalls alike (lv_copy_backup): one is the measure.
  lv_time_backup_copy plain plain 10809
  echo "backup copy over TCP: $(times_and_acks plain) plain, $(times_and_acks at_once) attached, at once" >&3
  # The listener, or the connection accepted before it was seen.
  grep -E "tcp (listening|connected) nodelay 0 -> 1\$" "$WATCH_OUT"
  assert_speedup "$plain" "$at_once" 5
}
