#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt status finds the domain's QEMU through libvirt's own
# records (its pid file, locked by QEMU), not by the uuid on a command
# line: a process of another user that carries the domain's uuid, has a
# lower pid and maps a file named libsockboost.so is never named.  When
# the process libvirt names does not run the domain's <emulator>,
# status refuses, naming none.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  lv_start decoy
}

teardown_file () {
  lv_stop
}

@test "a decoy with the domain's uuid and a lower pid is never named" {
  requires setpriv
  [ "$(id -u)" -eq 0 ] || sb_skip "needs root, to start nobody's decoy"
  local uuid dir decoy qemu
  truncate -s 8M "$(lv_image vm)"
  lv_define_domain vm
  uuid=$(lv_virsh domuuid vm)
  dir=$(mktemp -d /tmp/sb-decoy.XXXXXX)
  cleanup_push "rm -rf '$dir'"
  cp "$LIBSOCKBOOST" "$dir/libsockboost.so"
  mkfifo "$dir/fifo"
  chmod 0755 "$dir"
  chown -R nobody: "$dir"
  # Nobody's shell, started first (so its pid is the lower one), with
  # the uuid on its command line and a libsockboost.so mapped; it waits
  # on a FIFO nobody writes, starting no process of its own.
  setpriv --reuid=65534 --regid=65534 --clear-groups \
    env LD_PRELOAD="$dir/libsockboost.so" SOCKBOOST_DEBUG=0 \
    bash -c "echo mapped; read -r -t 60 <>'$dir/fifo'" -uuid "$uuid" \
    >"$dir/out" 3>&- &
  decoy=$!
  kill_at_teardown "$decoy"
  wait_for_line "$dir/out" mapped
  grep -q "$dir/libsockboost.so" "/proc/$decoy/maps"
  lv_virsh start vm
  qemu=$(lv_qemu_pid vm)
  [ "$decoy" -lt "$qemu" ] || fail "the decoy's pid $decoy is not below QEMU's $qemu"
  run "$SOCKBOOST" libvirt status -c "$LV_URI" vm
  assert_success
  assert_line "library:    not mapped in QEMU pid $qemu, started without it: 'sockboost attach --watch $qemu' tunes its sockets now"
}

@test "a QEMU that is not the domain's emulator: status refuses, naming no process" {
  local wrapper=$BATS_FILE_TMPDIR/qemu-wrapper
  printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v qemu-system-x86_64)" >"$wrapper"
  chmod 0755 "$wrapper"
  truncate -s 8M "$(lv_image wrapped)"
  lv_define_domain wrapped
  lv_virsh dumpxml --inactive wrapped |
    sed "s|<emulator>.*</emulator>|<emulator>$wrapper</emulator>|" >"$BATS_TEST_TMPDIR/wrapped.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/wrapped.xml"
  lv_virsh start wrapped
  run --separate-stderr "$SOCKBOOST" libvirt status -c "$LV_URI" wrapped
  assert_failure 1
  assert_line --index 2 "state:      running"
  assert_equal "${#lines[@]}" 3
  assert_equal "$stderr" "sockboost: libvirt: wrapped: pid $(lv_qemu_pid wrapped) holds libvirt's pid file but does not run the domain's emulator $wrapper: not naming a process"
}
