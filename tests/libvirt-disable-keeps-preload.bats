#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt disable takes out what enable put in, as it put it
# in: from an LD_PRELOAD that an administrator joined with another
# library (jemalloc), before or after ours, at ':' or a blank, only the
# library's path goes and the rest stays; a setting changed since enable
# stays too, with a warning.
bats_require_minimum_version 1.5.0
load helpers

JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2

setup_file () {
  lv_start preload
}

teardown_file () {
  lv_stop
}

# Enable domain $1, then edit its LD_PRELOAD to $2 and its
# SOCKBOOST_SNDBUF to $3 as an administrator would (virsh define).
enable_then_edit () {
  truncate -s 8M "$(lv_image "$1")"
  lv_define_domain "$1"
  "$SOCKBOOST" libvirt enable -c "$LV_URI" --sndbuf 4M "$1" >/dev/null
  lv_virsh dumpxml --inactive "$1" | sed \
    -e "s|name='LD_PRELOAD' value='[^']*'|name='LD_PRELOAD' value='$2'|" \
    -e "s|name='SOCKBOOST_SNDBUF' value='4M'|name='SOCKBOOST_SNDBUF' value='$3'|" \
    >"$BATS_TEST_TMPDIR/$1.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/$1.xml" >/dev/null
}

# The <qemu:env> lines of domain $1's definition.
env_lines () {
  lv_virsh dumpxml --inactive "$1" | grep "<qemu:env "
}

@test "jemalloc joined before the library at ':': it stays, the library goes" {
  enable_then_edit joined "$JEMALLOC:$LIBSOCKBOOST" 4M
  run "$SOCKBOOST" libvirt disable -c "$LV_URI" joined
  assert_success
  assert_output "joined: disabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_SNDBUF=4M removed); it takes effect when the domain is next started"
  run env_lines joined
  assert_output "    <qemu:env name='LD_PRELOAD' value='$JEMALLOC'/>"
}

@test "jemalloc after the library at a blank, a setting changed: both stay" {
  enable_then_edit blank "$LIBSOCKBOOST $JEMALLOC" 8M
  run --separate-stderr "$SOCKBOOST" libvirt disable -c "$LV_URI" blank
  assert_success
  assert_output "blank: disabled (LD_PRELOAD=$LIBSOCKBOOST removed); it takes effect when the domain is next started"
  assert_equal "$stderr" "sockboost: libvirt: warning: blank: SOCKBOOST_SNDBUF is '8M' now, not '4M' as enable set it: left as it is"
  run env_lines blank
  assert_output "    <qemu:env name='LD_PRELOAD' value='$JEMALLOC'/>
    <qemu:env name='SOCKBOOST_SNDBUF' value='8M'/>"
}
