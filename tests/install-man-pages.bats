#!/usr/bin/env bats
# make install installs every man page, naming the paths of its PREFIX.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires make man
  PREFIX=$BATS_TEST_TMPDIR/opt/sb
  install_tree "$PREFIX"
}

render () {
  MANWIDTH=200 LC_ALL=C man -l "$1" 2>/dev/null | col -b
}

@test "every page of doc/ is installed in its section" {
  local page
  for page in "$SB_ROOT"/doc/*.[17]; do
    [ -f "$PREFIX/share/man/man${page##*.}/${page##*/}" ] ||
      fail "${page##*/} is not installed"
  done
  run ls "$PREFIX/share/man/man1" "$PREFIX/share/man/man7"
  assert_output --partial sockboost.1
  assert_output --partial libsockboost.7
}

@test "libsockboost(7) shows the installed library's path" {
  run render "$PREFIX/share/man/man7/libsockboost.7"
  assert_success
  assert_output --partial "LD_PRELOAD=$PREFIX/lib/sockboost/libsockboost.so"
  refute_output --partial /usr/local
}

@test "sockboost(1) shows the installed library directory" {
  run render "$PREFIX/share/man/man1/sockboost.1"
  assert_success
  assert_output --partial "$PREFIX/lib/sockboost/libsockboost.so"
  refute_output --partial /usr/local
}

