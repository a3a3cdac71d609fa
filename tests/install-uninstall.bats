#!/usr/bin/env bats
# make uninstall, with the settings of make install, removes every file
# make install put there.
load helpers

@test "make uninstall leaves no installed file behind" {
  requires make
  local stage=$BATS_TEST_TMPDIR/stage prefix=/opt/sockboost-test
  make -s -C "$SB_ROOT" install DESTDIR="$stage" PREFIX="$prefix"
  [ -x "$stage$prefix/bin/sockboost" ] || fail "install put no sockboost there"
  make -s -C "$SB_ROOT" uninstall DESTDIR="$stage" PREFIX="$prefix"
  run find "$stage" -not -type d
  assert_success
  assert_output ""
}
