#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt says in one line what is wrong, exit 1 (2 for a usage
# error, with the Try line), and leaves the definition as it was: a
# domain enabled already, one not enabled, one that sets LD_PRELOAD
# itself, a transient one, an unknown name, no daemon, no virsh.

load helpers

setup_file () {
  lv_start errors
  truncate -s 8M "$(lv_image vm)"
  lv_define_domain vm
}

teardown_file () {
  lv_stop
}

# Run sockboost libvirt on the test's daemon.
sb_libvirt () {
  run "$SOCKBOOST" libvirt "$1" --connect "$LV_URI" "${@:2}"
}

# Fail unless the persistent definition of domain $1 is still the one
# saved in $BATS_TEST_TMPDIR/$1.xml.
assert_definition_unchanged () {
  lv_virsh dumpxml --inactive "$1" | cmp - "$BATS_TEST_TMPDIR/$1.xml"
}

@test "enable on a domain enabled already: exit 1, settings kept" {
  "$SOCKBOOST" libvirt enable -c "$LV_URI" --sndbuf 1M vm
  lv_virsh dumpxml --inactive vm >"$BATS_TEST_TMPDIR/vm.xml"
  sb_libvirt enable --sndbuf 8M vm
  assert_failure 1
  assert_output "sockboost: libvirt: vm is enabled already (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_SNDBUF=1M): 'sockboost libvirt disable' it first to change its settings"
  assert_definition_unchanged vm
  "$SOCKBOOST" libvirt disable -c "$LV_URI" vm
}

@test "disable on a domain not enabled: exit 1" {
  lv_virsh dumpxml --inactive vm >"$BATS_TEST_TMPDIR/vm.xml"
  sb_libvirt disable vm
  assert_failure 1
  assert_output "sockboost: libvirt: vm is not enabled: its definition has no sockboost <qemu:env> entries"
  assert_definition_unchanged vm
}

@test "a domain that sets LD_PRELOAD itself: exit 1, left alone" {
  truncate -s 8M "$(lv_image own)"
  lv_define_domain own
  lv_virsh dumpxml --inactive own | sed \
    -e "1s|>\$| xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>|" \
    -e "s|^</domain>|  <qemu:commandline>\n    <qemu:env name='LD_PRELOAD' value='libfoo.so'/>\n  </qemu:commandline>\n</domain>|" \
    >"$BATS_TEST_TMPDIR/own.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/own.xml"
  lv_virsh dumpxml --inactive own >"$BATS_TEST_TMPDIR/own.xml"
  sb_libvirt enable own
  assert_failure 1
  assert_output "sockboost: libvirt: own sets LD_PRELOAD in its <qemu:env> already: add the library there by hand (virsh edit)"
  assert_definition_unchanged own
  sb_libvirt disable own
  assert_failure 1
  assert_definition_unchanged own
}

@test "a transient domain: exit 1, it stays transient" {
  truncate -s 8M "$(lv_image transient)"
  lv_define_domain transient
  lv_virsh dumpxml --inactive transient >"$BATS_TEST_TMPDIR/transient.xml"
  lv_virsh undefine transient
  lv_virsh create "$BATS_TEST_TMPDIR/transient.xml"
  sb_libvirt enable transient
  assert_failure 1
  assert_output "sockboost: libvirt: transient is transient: it has no definition to change (use 'sockboost attach --watch' on its QEMU)"
  run lv_virsh dominfo transient
  assert_line --regexp '^Persistent: +no$'
  lv_virsh destroy transient
}

@test "an unknown domain, a name with a control character: exit 1, one line" {
  sb_libvirt enable nosuchvm
  assert_failure 1
  assert_output "sockboost: libvirt: virsh dominfo: failed to get domain 'nosuchvm'"
  sb_libvirt status $'bad\e[31mname'
  assert_failure 1
  assert_output "sockboost: libvirt: virsh dominfo: failed to get domain 'bad\\x1b[31mname'"
}

@test "no daemon at the URI: exit 1, virsh's reason" {
  run "$SOCKBOOST" libvirt status -c "qemu+unix:///system?socket=$BATS_TEST_TMPDIR/none" vm
  assert_failure 1
  assert_output --regexp "^sockboost: libvirt: virsh dominfo: failed to connect to the hypervisor; .*No such file or directory"
  assert_equal "${#lines[@]}" 1
}

@test "no virsh: exit 1, says what to install" {
  # Every program of /usr/bin but virsh.
  mkdir "$BATS_TEST_TMPDIR/bin"
  find /usr/bin -maxdepth 1 ! -name virsh ! -type d -exec ln -s -t "$BATS_TEST_TMPDIR/bin" {} +
  PATH=$BATS_TEST_TMPDIR/bin run "$SOCKBOOST" libvirt status vm
  assert_failure 1
  assert_output "sockboost: libvirt: virsh not found: libvirt's client is not installed (Debian: apt-get install libvirt-clients)"
}

@test "usage errors: exit 2 with the Try line, nothing changed" {
  lv_virsh dumpxml --inactive vm >"$BATS_TEST_TMPDIR/vm.xml"
  # A misplaced domain named like a program must not be run (by 'sockboost
  # run', asked for the settings): this one would leave a mark.
  mkdir "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\ntouch "%s/ran"\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/vm"
  chmod +x "$BATS_TEST_TMPDIR/bin/vm"
  local args
  for args in "" "enable" "frob vm" "enable vm extra" "enable vm --sndbuf 8M" \
      "enable --sndbuf 3X vm" "enable --scope some vm" "enable --bogus vm" \
      "status --sndbuf 1M vm" "status vm extra" "disable -c"; do
    # shellcheck disable=SC2086
    PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$SOCKBOOST" libvirt $args
    assert_failure 2
    assert_equal "${#lines[@]}" 2
    assert_line --index 0 --regexp "^sockboost: libvirt: "
    assert_line --index 1 "Try 'sockboost libvirt --help' for more information."
  done
  [ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "a misplaced domain name was run as a program"
  assert_definition_unchanged vm
}
