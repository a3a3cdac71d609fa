#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt enable adds the <qemu:env> entries to a domain's
# persistent definition, with one that records what it set, and disable
# gives back the original definition byte for byte, also when the domain
# has <qemu:commandline> entries and other qemu: elements of its own.

load helpers

setup_file () {
  lv_start enable
}

teardown_file () {
  lv_stop
}

# The persistent definition of domain $1, as libvirt writes it.
inactive_xml () {
  lv_virsh dumpxml --inactive "$1"
}

# The lines only in one of the files $1 and $2 ('<' or '>' first).
changed_lines () {
  diff "$1" "$2" | grep '^[<>]'
}

@test "enable adds LD_PRELOAD and the options' settings; disable restores the XML exactly" {
  truncate -s 8M "$(lv_image plain)"
  lv_define_domain plain
  inactive_xml plain >"$BATS_TEST_TMPDIR/before.xml"
  run "$SOCKBOOST" libvirt enable --connect "$LV_URI" --sndbuf 4M --no-cork plain
  assert_success
  assert_output "plain: enabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_CORK=off, SOCKBOOST_SNDBUF=4M); it takes effect when the domain is next started"
  inactive_xml plain >"$BATS_TEST_TMPDIR/enabled.xml"
  run changed_lines "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/enabled.xml"
  assert_output "< <domain type='qemu'>
> <domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
>   <qemu:commandline>
>     <qemu:env name='LD_PRELOAD' value='$LIBSOCKBOOST'/>
>     <qemu:env name='SOCKBOOST_CORK' value='off'/>
>     <qemu:env name='SOCKBOOST_SNDBUF' value='4M'/>
>     <qemu:env name='SOCKBOOST_LIBVIRT_ENABLED' value='LD_PRELOAD=$LIBSOCKBOOST SOCKBOOST_CORK=off SOCKBOOST_SNDBUF=4M'/>
>   </qemu:commandline>"
  run "$SOCKBOOST" libvirt disable --connect "$LV_URI" plain
  assert_success
  assert_output --partial "plain: disabled ("
  inactive_xml plain >"$BATS_TEST_TMPDIR/after.xml"
  cmp "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/after.xml"
}

@test "a domain with qemu: entries of its own keeps them, in place, byte for byte" {
  truncate -s 8M "$(lv_image own)"
  lv_define_domain own
  inactive_xml own | sed \
    -e "1s|>\$| xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>|" \
    -e "s|^</domain>|  <qemu:commandline>\n    <qemu:arg value='-no-user-config'/>\n    <qemu:env name='TZ' value='UTC'/>\n  </qemu:commandline>\n  <qemu:capabilities>\n    <qemu:del capability='usb-redir'/>\n  </qemu:capabilities>\n</domain>|" \
    >"$BATS_TEST_TMPDIR/own.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/own.xml"
  inactive_xml own >"$BATS_TEST_TMPDIR/before.xml"
  grep -q "<qemu:arg value='-no-user-config'/>" "$BATS_TEST_TMPDIR/before.xml"
  "$SOCKBOOST" libvirt enable -c "$LV_URI" own
  inactive_xml own >"$BATS_TEST_TMPDIR/enabled.xml"
  run changed_lines "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/enabled.xml"
  assert_output ">     <qemu:env name='LD_PRELOAD' value='$LIBSOCKBOOST'/>
>     <qemu:env name='SOCKBOOST_LIBVIRT_ENABLED' value='LD_PRELOAD=$LIBSOCKBOOST'/>"
  # After the domain's own entries, inside its own block.
  grep -A1 "name='TZ'" "$BATS_TEST_TMPDIR/enabled.xml" | grep -q LD_PRELOAD
  "$SOCKBOOST" libvirt disable -c "$LV_URI" own
  inactive_xml own >"$BATS_TEST_TMPDIR/after.xml"
  cmp "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/after.xml"
}
