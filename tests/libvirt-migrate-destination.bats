#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The destination of a migration: the QEMU that libvirt starts there for
# an enabled domain gets the library too, because <qemu:commandline> is
# part of the domain XML that travels with the migration (no hook is
# needed).  A real live migration with --copy-storage-all (the source
# mirrors the disk into an NBD export the destination's QEMU serves)
# between two libvirtds on one machine: one network namespace, two mount
# namespaces, so that each keeps its own disks at the same path.

load helpers

setup_file () {
  lv_start src
  lv_start dst --netns-of "$LV_INIT"
  # The destination's disk must exist, as large as the source's.
  truncate -s 8M "$(lv_image vm)"
  lv_use src
  make_sparse_image "$(lv_image vm)" 8
  lv_define_domain vm
  "$SOCKBOOST" libvirt enable -c "$LV_URI" -v vm
  lv_virsh start vm
}

teardown_file () {
  lv_use dst
  lv_stop
  lv_use src
  lv_stop
}

@test "the migration XML carries the entries (dumpxml --migratable)" {
  lv_use src
  run lv_virsh dumpxml --migratable vm
  assert_line "    <qemu:env name='LD_PRELOAD' value='$LIBSOCKBOOST'/>"
  assert_line "    <qemu:env name='SOCKBOOST_DEBUG' value='2'/>"
}

@test "virsh migrate --copy-storage-all: the destination's QEMU maps the library, the disk arrives" {
  lv_requires_shared_paths
  lv_use dst
  local dst_uri=$LV_URI
  lv_use src
  timeout 300 virsh -q -c "$LV_URI" migrate --live --copy-storage-all \
    --persistent --undefinesource vm "$dst_uri" \
    --migrateuri tcp://127.0.0.1 --listen-address 127.0.0.1
  local src_image
  src_image=$(lv_image vm)
  lv_use dst
  local pid
  pid=$(lv_qemu_pid vm)
  grep -q " $LIBSOCKBOOST\$" "/proc/$pid/maps"
  # The library tuned the connections the destination's QEMU accepted:
  # the NBD export the disk was mirrored into, and the migration stream.
  grep -q "tcp accept nodelay 0 -> 1" "$LV_DIR/log/qemu/vm.log"
  cmp "$src_image" "$(lv_image vm)"
  run "$SOCKBOOST" libvirt status -c "$LV_URI" vm
  assert_line "definition: enabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_DEBUG=2)"
  assert_line "library:    mapped in QEMU pid $pid ($LIBSOCKBOOST)"
}
