#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The libvirt tests' daemon (helpers-libvirt.bash) is the test's own: a
# TCG domain starts on it, its definition and state stay in the test's
# directory, the host's libvirt files are left as they were, and
# stopping it leaves no process behind.

load helpers

setup_file () {
  find /etc/libvirt /var/lib/libvirt /var/log/libvirt -printf '%p %s %T@\n' \
    2>/dev/null | sort >"$BATS_FILE_TMPDIR/host-before"
  lv_start private
}

teardown_file () {
  lv_stop
}

@test "a TCG domain starts on the test's own daemon, in its namespaces" {
  truncate -s 8M "$(lv_image plain)"
  lv_define_domain plain
  lv_virsh start plain
  local pid
  pid=$(lv_qemu_pid plain)
  [ "$(readlink "/proc/$pid/ns/net")" = "$(readlink "/proc/$LV_INIT/ns/net")" ]
  [ "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/self/ns/net)" ]
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- '-accel tcg'
  [ -f "$LV_DIR/etc/qemu/plain.xml" ]
  [ ! -e /etc/libvirt/qemu/plain.xml ]
  [ -s "$LV_DIR/log/qemu/plain.log" ]
}

@test "the host's libvirt files are as they were" {
  find /etc/libvirt /var/lib/libvirt /var/log/libvirt -printf '%p %s %T@\n' \
    2>/dev/null | sort >"$BATS_FILE_TMPDIR/host-after"
  diff "$BATS_FILE_TMPDIR/host-before" "$BATS_FILE_TMPDIR/host-after"
}

@test "stopping the daemon ends it, virtlogd and the domain's QEMU" {
  local pids
  pids=$(pgrep -d ' ' --ns "$LV_INIT" --nslist pid .)
  [ -n "$pids" ]
  lv_stop
  local pid
  for pid in $pids; do
    [ ! -d "/proc/$pid" ] || [ "$(awk '{ print $3 }' "/proc/$pid/stat")" = Z ] ||
      fail "process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline")) is still running"
  done
}
