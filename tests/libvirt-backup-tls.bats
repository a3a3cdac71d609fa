#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A pull backup over TLS (backup-begin with tls='yes', the certificates
# of qemu.conf's backup_tls_x509_cert_dir): QEMU 7.2 stalls there too.
# With the library, by sockboost libvirt enable at start or by sockboost
# attach --watch on the running QEMU, qemu-img convert copies it at
# least 5x faster than a twin domain's (medians of interleaved rounds),
# the same data.

load helpers

setup_file () {
  lv_start tls
  make_tls_certs "$LV_DIR/tls"
  # 8 strides, 34 stalls (lv_copy_backup): about 1.5 s plain over TLS.
  lv_define_twins 1 plain boosted
}

teardown_file () {
  lv_stop
}

setup () {
  lv_virsh start plain
  cleanup_push "lv_virsh destroy plain"
  lv_backup_begin plain 10809 tls
}

# Copy the TLS backups of plain and boosted (begun) in turns; fail
# unless boosted's median is at least 5x faster.
assert_tls_backup_gain () {
  lv_time_backup_rounds 3 plain 10809 boosted 10810 tls
  echo "backup copy over TLS: $(times_and_acks LV_PLAIN_TIMES) plain, $(times_and_acks LV_BOOSTED_TIMES) with the library ($1)" >&3
  assert_speedup "$(median_of "${LV_PLAIN_TIMES[@]}")" "$(median_of "${LV_BOOSTED_TIMES[@]}")" 5
}

@test "backup pull over TLS, domain enabled: >= 5x faster, same data" {
  "$SOCKBOOST" libvirt enable -c "$LV_URI" boosted
  cleanup_push "'$SOCKBOOST' libvirt disable -c '$LV_URI' boosted"
  lv_virsh start boosted
  cleanup_push "lv_virsh destroy boosted"
  lv_backup_begin boosted 10810 tls
  assert_tls_backup_gain "enable"
}

@test "backup pull over TLS, QEMU followed by attach --watch: >= 5x faster" {
  use_attach_helper
  lv_virsh start boosted
  cleanup_push "lv_virsh destroy boosted"
  local out=$BATS_TEST_TMPDIR/watch.out
  "$SOCKBOOST" attach --watch "$(lv_qemu_pid boosted)" >"$out" 2>&1 3>&- &
  kill_at_teardown $!
  wait_for_line "$out" "unix connected sndbuf"
  lv_backup_begin boosted 10810 tls
  wait_for_line "$out" "tcp listening nodelay 0 -> 1"
  assert_tls_backup_gain "attach --watch"
}
