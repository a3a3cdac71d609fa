#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt edits only the top-level <qemu:commandline> block
# (and the namespace's declaration): lines that look like its entries in
# a <metadata> CDATA section, which libvirt keeps as they are, stay as
# they are, and disable gives back the definition byte for byte.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  lv_start block
}

teardown_file () {
  lv_stop
}

@test "our lines in metadata CDATA stay; enable and disable touch only the block" {
  local ours="    <qemu:env name='LD_PRELOAD' value='$LIBSOCKBOOST'/>"
  truncate -s 8M "$(lv_image noted)"
  lv_define_domain noted
  lv_virsh dumpxml --inactive noted | sed "s|^  <memory |  <metadata>\\
    <app:notes xmlns:app='http://example.org/app'><![CDATA[\\
$ours\\
    <qemu:env name='SOCKBOOST_SNDBUF' value='4M'/>\\
    <qemu:env name='SOCKBOOST_LIBVIRT_ENABLED' value='LD_PRELOAD=$LIBSOCKBOOST'/>\\
]]></app:notes>\\
  </metadata>\\
  <memory |" >"$BATS_TEST_TMPDIR/noted.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/noted.xml"
  lv_virsh dumpxml --inactive noted >"$BATS_TEST_TMPDIR/before.xml"
  grep -qxF "$ours" "$BATS_TEST_TMPDIR/before.xml" || fail "libvirt did not keep the CDATA"
  run "$SOCKBOOST" libvirt status -c "$LV_URI" noted
  assert_line "definition: not enabled"
  "$SOCKBOOST" libvirt enable -c "$LV_URI" --sndbuf 4M noted
  lv_virsh dumpxml --inactive noted >"$BATS_TEST_TMPDIR/enabled.xml"
  lv_assert_only_block_added "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/enabled.xml"
  "$SOCKBOOST" libvirt disable -c "$LV_URI" noted
  lv_virsh dumpxml --inactive noted >"$BATS_TEST_TMPDIR/after.xml"
  cmp "$BATS_TEST_TMPDIR/before.xml" "$BATS_TEST_TMPDIR/after.xml"
}
