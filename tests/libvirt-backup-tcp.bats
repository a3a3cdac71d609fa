#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A pull backup over TCP from a libvirt domain (virsh backup-begin):
# QEMU 7.2's NBD server leaves Nagle on, so a reply in two chunks (the
# data and the hole of one stride of a fragmented disk) waits for the
# client's delayed ACK.  Two domains on copies of one disk image, one
# enabled by sockboost libvirt, backed up side by side: qemu-img dd, a
# stride per READ, copies the enabled one's backup at least 10x faster
# (medians of interleaved rounds), the disk's data.  (Why not qemu-img
# convert: lv_copy_backup.)

load helpers

setup_file () {
  lv_start backup
  # 64 strides, 64 stalls of about 45 ms: 3 s plain.
  lv_define_twins 8 plain boosted
}

teardown_file () {
  lv_stop
}

@test "backup pull over TCP: >= 10x faster with sockboost libvirt enable, same data" {
  "$SOCKBOOST" libvirt enable -c "$LV_URI" -v boosted
  lv_virsh start plain
  lv_virsh start boosted
  lv_backup_begin plain 10809
  lv_backup_begin boosted 10810
  lv_time_backup_rounds 3 plain 10809 boosted 10810
  echo "backup copy over TCP: $(times_and_acks LV_PLAIN_TIMES) plain, $(times_and_acks LV_BOOSTED_TIMES) with the library" >&3
  # The library tuned the backup's connections (its log is the domain's).
  grep -q "tcp accept nodelay 0 -> 1" "$LV_DIR/log/qemu/boosted.log"
  assert_speedup "$(median_of "${LV_PLAIN_TIMES[@]}")" "$(median_of "${LV_BOOSTED_TIMES[@]}")" 10
}
