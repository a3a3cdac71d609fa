#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A pull backup over TCP from a libvirt domain (virsh backup-begin):
# QEMU 7.2's NBD server leaves Nagle on, so a reply in two chunks (the
# data and the hole of one stride of a fragmented disk) waits for the
# client's delayed ACK.  The daemon (so the domain's QEMU) runs in the
# test's cgroup; the domain is started before host mode is first
# enabled.  Backups begun while host mode is off and while it is on, in
# turns: qemu-img dd, a stride per READ, copies the latter at least 10x
# faster (medians), the disk's data; the domain's definition is what it
# was, and its QEMU maps no library.

load helpers

@test "host mode: backup pull over TCP from a running libvirt domain, >= 10x faster, definition unchanged" {
  hm_setup
  hm_lv_start host-backup
  # 64 strides, 64 stalls of about 45 ms: 3 s with host mode off.
  lv_define_twins 8 vm
  lv_virsh dumpxml --inactive vm >"$BATS_TEST_TMPDIR/before.xml"
  lv_virsh start vm
  local round plain=() plain_ACKS=() host=() host_ACKS=()
  for ((round = 0; round < 3; round++)); do
    run hm_host disable
    assert_success
    lv_backup_begin vm 10809
    lv_time_backup_copy plain vm 10809
    lv_backup_end vm
    hm_enable >/dev/null
    lv_backup_begin vm 10809
    lv_time_backup_copy host vm 10809
    lv_backup_end vm
  done
  echo "backup copy over TCP: $(times_and_acks plain) with host mode off, $(times_and_acks host) on" >&3
  lv_virsh dumpxml --inactive vm | diff -u "$BATS_TEST_TMPDIR/before.xml" - ||
    fail "the domain's definition changed"
  ! grep -q libsockboost "/proc/$(lv_qemu_pid vm)/maps" || fail "QEMU maps the library"
  run hm_host status --json
  assert_success
  [ "$(jq '[.tuned[] | select(.program == "qemu-system-*") | .tcp_bind] | add' <<<"$output")" -ge 1 ] ||
    fail "host mode counted no QEMU listener: $output"
  assert_speedup "$(median_of "${plain[@]}")" "$(median_of "${host[@]}")" 10
}
