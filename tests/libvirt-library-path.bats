#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The path sockboost libvirt writes into a domain is the library of the
# sockboost that runs: the installed one once installed (the build's in
# the tree, as the other libvirt tests use), and QEMU maps it.  A path
# that QEMU's user (not root, outside these tests) could not reach gets
# a warning naming the directory at fault.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  lv_start path
}

teardown_file () {
  lv_stop
}

@test "an installed sockboost writes the installed library, which QEMU maps" {
  lv_requires_shared_paths
  requires make
  # Reachable by others, as an installation is.
  local prefix
  prefix=$(mktemp -d "${TMPDIR:-/tmp}/sb-libvirt-prefix.XXXXXX")
  chmod 0755 "$prefix"
  cleanup_push "rm -rf '$prefix'"
  install_tree "$prefix/usr"
  truncate -s 8M "$(lv_image installed)"
  lv_define_domain installed
  run --separate-stderr env -u SOCKBOOST_LIBRARY "$prefix/usr/bin/sockboost" \
    libvirt enable -c "$LV_URI" installed
  assert_success
  assert_output --partial "(LD_PRELOAD=$prefix/usr/lib/sockboost/libsockboost.so)"
  assert_equal "$stderr" ""
  lv_virsh start installed
  grep -q " $prefix/usr/lib/sockboost/libsockboost.so\$" "/proc/$(lv_qemu_pid installed)/maps"
}

@test "a library in a directory others cannot search: a warning naming it" {
  truncate -s 8M "$(lv_image private)"
  lv_define_domain private
  # Only this directory is closed: its parents are reachable.
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/sb-libvirt-private.XXXXXX")
  cleanup_push "rm -rf '$dir'"
  cp "$LIBSOCKBOOST" "$dir/"
  SOCKBOOST_LIBRARY=$dir/libsockboost.so \
    run --separate-stderr "$SOCKBOOST" libvirt enable -c "$LV_URI" private
  assert_success
  assert_equal "$stderr" "sockboost: libvirt: warning: QEMU's user may not reach $dir/libsockboost.so: $dir is not searchable by others (install the library with 'make install')"
}
