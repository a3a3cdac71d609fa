#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost libvirt enable writes every path absolute: QEMU runs in /, so
# a relative --log-file would be written there, as QEMU's user (root
# here).  A relative name is taken from where enable runs, as 'sockboost
# run' takes it, and QEMU writes its log there; a relative library path
# too.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  lv_start paths
}

teardown_file () {
  lv_stop
}

@test "a relative --log-file is made absolute, and QEMU writes its log there, not in /" {
  local name="sb-log-$$-$RANDOM"
  cleanup_push "rm -f /$name-*.log"
  truncate -s 8M "$(lv_image logged)"
  lv_define_domain logged
  cd "$BATS_TEST_TMPDIR"
  run "$SOCKBOOST" libvirt enable -c "$LV_URI" -v --log-file "$name-%p.log" logged
  assert_success
  assert_output "logged: enabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_DEBUG=2, SOCKBOOST_LOG_FILE=$BATS_TEST_TMPDIR/$name-%p.log); it takes effect when the domain is next started"
  lv_virsh start logged
  local deadline=$((SECONDS + 20))
  until grep -qs "settings:" "$BATS_TEST_TMPDIR/$name"-*.log; do
    [ $SECONDS -lt $deadline ] || fail "QEMU wrote no log in $BATS_TEST_TMPDIR"
    sleep 0.1
  done
  run compgen -G "/$name-*.log"
  assert_failure
}

@test "a relative library path is made absolute" {
  truncate -s 8M "$(lv_image library)"
  lv_define_domain library
  cd "$(dirname "$LIBSOCKBOOST")"
  SOCKBOOST_LIBRARY=./libsockboost.so run "$SOCKBOOST" libvirt enable -c "$LV_URI" library
  assert_success
  assert_output "library: enabled (LD_PRELOAD=$LIBSOCKBOOST); it takes effect when the domain is next started"
}
