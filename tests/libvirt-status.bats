#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A domain enabled with sockboost libvirt starts with the library mapped
# in its QEMU and the settings in QEMU's environment; status tells the
# definition from the running QEMU: enabled and mapped, enabled while
# running (mapped at the next start), shut off.

load helpers

setup_file () {
  lv_start status
}

teardown_file () {
  lv_stop
}

sb_status () {
  run "$SOCKBOOST" libvirt status --connect "$LV_URI" "$1"
  assert_success
}

@test "enabled, then started: QEMU maps the library and has the settings" {
  lv_requires_shared_paths
  truncate -s 8M "$(lv_image boosted)"
  lv_define_domain boosted
  "$SOCKBOOST" libvirt enable -c "$LV_URI" --sndbuf 1M -v boosted
  lv_virsh start boosted
  local pid
  pid=$(lv_qemu_pid boosted)
  grep -q " $LIBSOCKBOOST\$" "/proc/$pid/maps"
  run bash -c "tr '\\0' '\\n' <'/proc/$pid/environ' | grep -E '^(LD_PRELOAD|SOCKBOOST_)' | sort"
  assert_output "LD_PRELOAD=$LIBSOCKBOOST
SOCKBOOST_DEBUG=2
SOCKBOOST_LIBVIRT_ENABLED=LD_PRELOAD=$LIBSOCKBOOST SOCKBOOST_DEBUG=2 SOCKBOOST_SNDBUF=1M
SOCKBOOST_SNDBUF=1M"
  # The library logs to QEMU's stderr, which is the domain's log.
  wait_for_line "$LV_DIR/log/qemu/boosted.log" "sockboost\\[qemu-system-x86.*settings: sndbuf 1048576"
  sb_status boosted
  assert_output "domain:     boosted
definition: enabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_DEBUG=2, SOCKBOOST_SNDBUF=1M)
state:      running
library:    mapped in QEMU pid $pid ($LIBSOCKBOOST)"
}

@test "enabled while running: not mapped until the next start, attach suggested" {
  lv_requires_shared_paths
  truncate -s 8M "$(lv_image later)"
  lv_define_domain later
  lv_virsh start later
  run "$SOCKBOOST" libvirt enable -c "$LV_URI" later
  assert_success
  assert_output --partial "it takes effect when the domain is next started"
  local pid
  pid=$(lv_qemu_pid later)
  sb_status later
  assert_line "definition: enabled (LD_PRELOAD=$LIBSOCKBOOST)"
  assert_line "library:    not mapped in QEMU pid $pid, started without it: 'sockboost attach --watch $pid' tunes its sockets now"
  lv_virsh destroy later
  lv_virsh start later
  pid=$(lv_qemu_pid later)
  sb_status later
  assert_line "library:    mapped in QEMU pid $pid ($LIBSOCKBOOST)"
}

@test "started with it, but the loader could not read it: status says so" {
  truncate -s 8M "$(lv_image unreadable)"
  lv_define_domain unreadable
  mkdir -m 0755 "$BATS_TEST_TMPDIR/lib"
  cp "$LIBSOCKBOOST" "$BATS_TEST_TMPDIR/lib/libsockboost.so"
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/lib/libsockboost.so \
    "$SOCKBOOST" libvirt enable -c "$LV_URI" unreadable
  # The library is gone by the time QEMU starts.
  rm "$BATS_TEST_TMPDIR/lib/libsockboost.so"
  lv_virsh start unreadable
  local pid
  pid=$(lv_qemu_pid unreadable)
  sb_status unreadable
  assert_line "library:    not mapped in QEMU pid $pid, which was started with it: the loader skipped it (the domain's log says why)"
  grep -q "libsockboost.so.*cannot be preloaded" "$LV_DIR/log/qemu/unreadable.log"
}

@test "shut off: the definition only" {
  truncate -s 8M "$(lv_image off)"
  lv_define_domain off
  sb_status off
  assert_output "domain:     off
definition: not enabled
state:      shut off"
}
