#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher with a program started by libvirt: a pull backup over TCP
# from a running domain (virsh backup-begin), whose QEMU 7.2 binds its
# NBD server's listener only then, in the test's cgroup.  With host
# mode off, each stride of the fragmented disk waits for a delayed ACK;
# with the watcher as host mode's TCP part (enable --watcher), the bind
# is reported and the listener tuned from outside: qemu-img dd copies
# the backup at least 10x faster (medians), and QEMU maps no library.

load helpers

@test "host watcher: backup pull from a libvirt domain, >= 10x faster" {
  hm_setup
  hm_lv_start watcher-backup
  # 64 strides, 64 stalls of about 45 ms: 3 s with host mode off.
  lv_define_twins 8 vm
  lv_virsh start vm
  cleanup_push "pkill -KILL -f '^sb-host watch --pin-dir $HM_PINS\\$'"
  cleanup_push "hm_host disable >/dev/null 2>&1"
  local round plain=() plain_ACKS=() host=() host_ACKS=()
  for ((round = 0; round < 2; round++)); do
    run hm_host disable
    assert_success
    lv_backup_begin vm 10809
    lv_time_backup_copy plain vm 10809
    lv_backup_end vm
    hm_enable --watcher >/dev/null
    lv_backup_begin vm 10809
    lv_time_backup_copy host vm 10809
    lv_backup_end vm
  done
  echo "backup copy over TCP: $(times_and_acks plain) with host mode off, $(times_and_acks host) with the watcher" >&3
  ! grep -q libsockboost "/proc/$(lv_qemu_pid vm)/maps" || fail "QEMU maps the library"
  run hm_host status --json
  assert_success
  [ "$(jq -r .tcp_by <<<"$output")" = watcher ] || fail "status: $output"
  [ "$(jq '[.tuned[] | select(.program == "qemu-system-*") | .tcp_bind] | add' <<<"$output")" -ge 1 ] ||
    fail "no QEMU listener counted: $output"
  assert_speedup "$(median_of "${plain[@]}")" "$(median_of "${host[@]}")" 10
}
