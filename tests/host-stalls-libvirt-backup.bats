#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The counting names the libvirt domain whose backup stalled.  A pull
# backup over TCP from a domain of a private libvirtd (QEMU 7.2's NBD
# server leaves Nagle on: each stride of a fragmented disk waits for the
# client's delayed ACK, helpers-libvirt.bash), the daemon and so QEMU in
# the test's cgroup.  Observed (enable --observe), `sockboost metrics
# --connect URI` gives the domain's stalls by its name, as libvirt's own
# records name its QEMU, within 10% of the delayed ACKs its namespace
# sent; tuned (enable), almost none more, and the time counted observed
# is within 20% of what the tuning saved.

load helpers

@test "host counting: a backup pull's stalls counted for the libvirt domain, by name" {
  requires jq
  hm_setup
  hm_lv_start stalls-backup
  lv_define_twins 8 vm
  lv_virsh start vm
  hm_enable --observe >/dev/null
  local metric='sockboost_host_domain_stalls_total{domain="vm",program="qemu-system-*"}'
  local seconds_metric='sockboost_host_domain_stall_seconds_total{domain="vm",program="qemu-system-*"}'
  local observed=() observed_ACKS=() tuned=() tuned_ACKS=() stalls seconds

  lv_backup_begin vm 10809
  lv_time_backup_copy observed vm 10809
  lv_backup_end vm
  run "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --connect "$LV_URI"
  assert_success
  stalls=$(hm_metric "$metric" "$output")
  seconds=$(hm_metric "$seconds_metric" "$output")
  echo "observed: ${observed[0]} s, ${observed_ACKS[0]} delayed ACKs; domain vm: $stalls stalls, $seconds s" >&3
  [ -n "$stalls" ] || fail "no stalls for domain vm: $output"
  [ "${observed_ACKS[0]}" -ge 40 ] || fail "the copy made only ${observed_ACKS[0]} delayed ACKs"
  awk -v c="$stalls" -v a="${observed_ACKS[0]}" 'BEGIN { d = c - a; if (d < 0) d = -d; exit !(d <= 0.10 * a) }' ||
    fail "domain vm: $stalls stalls counted, ${observed_ACKS[0]} delayed ACKs (10% apart at most)"
  # The same figures as status's row of QEMU's process.
  run hm_host status --json
  assert_success
  [ "$(jq --argjson p "$(lv_qemu_pid vm)" '[.processes[] | select(.pid == $p)][0].stalls' <<<"$output")" = "$stalls" ] ||
    fail "status has not QEMU's $stalls stalls: $output"

  hm_enable >/dev/null
  lv_backup_begin vm 10809
  lv_time_backup_copy tuned vm 10809
  lv_backup_end vm
  run "$SOCKBOOST" metrics --pin-dir "$HM_PINS" --connect "$LV_URI"
  assert_success
  echo "tuned: ${tuned[0]} s, ${tuned_ACKS[0]} delayed ACKs; domain vm: $(hm_metric "$metric" "$output") stalls in all" >&3
  [ "$(($(hm_metric "$metric" "$output") - stalls))" -le 2 ] ||
    fail "tuned, the domain stalled $(($(hm_metric "$metric" "$output") - stalls)) times more"
  awk -v s="$seconds" -v o="${observed[0]}" -v t="${tuned[0]}" \
    'BEGIN { saved = o - t; d = s - saved; if (d < 0) d = -d; exit !(saved > 0 && d <= 0.20 * saved) }' ||
    fail "counted $seconds s of stalls; the tuning saved ${observed[0]} - ${tuned[0]} s (20% apart at most)"
}
