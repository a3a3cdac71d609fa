#!/usr/bin/env bats
# sockboost finds its library in the build tree (through symlinks), in
# PKGLIBDIR once installed, or where SOCKBOOST_LIBRARY says.
load helpers

preload_of () {
  "$1" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
}

# make install into a private prefix.
install_prefix () {
  install_tree "$BATS_TEST_TMPDIR/prefix"
}

@test "from the build tree it uses ../preload/libsockboost.so" {
  unset SOCKBOOST_LIBRARY LD_PRELOAD
  run preload_of "$SOCKBOOST"
  assert_success
  assert_output "$SB_ROOT/preload/libsockboost.so"
}

@test "through a symlink it still finds the build tree's library" {
  unset SOCKBOOST_LIBRARY LD_PRELOAD
  ln -s "$SOCKBOOST" "$BATS_TEST_TMPDIR/sockboost"
  run preload_of "$BATS_TEST_TMPDIR/sockboost"
  assert_success
  assert_output "$SB_ROOT/preload/libsockboost.so"
}

@test "installed, it uses PKGLIBDIR and the substituted version" {
  unset SOCKBOOST_LIBRARY LD_PRELOAD
  install_prefix
  run preload_of "$BATS_TEST_TMPDIR/prefix/bin/sockboost"
  assert_success
  assert_output "$BATS_TEST_TMPDIR/prefix/lib/sockboost/libsockboost.so"
  run "$BATS_TEST_TMPDIR/prefix/bin/sockboost" --version
  assert_output "sockboost $(sed -n 's/^VERSION := *//p' "$SB_ROOT/GNUmakefile")"
}

@test "SOCKBOOST_LIBRARY overrides both" {
  install_prefix
  cp "$LIBSOCKBOOST" "$BATS_TEST_TMPDIR/mine.so"
  unset LD_PRELOAD
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/mine.so run preload_of "$BATS_TEST_TMPDIR/prefix/bin/sockboost"
  assert_output "$BATS_TEST_TMPDIR/mine.so"
}

@test "from the build tree --version reads the GNUmakefile's version" {
  run "$SOCKBOOST" --version
  assert_success
  assert_output "sockboost $(sed -n 's/^VERSION := *//p' "$SB_ROOT/GNUmakefile")"
}

@test "a library path LD_PRELOAD cannot carry is refused" {
  mkdir "$BATS_TEST_TMPDIR/a b"
  cp "$LIBSOCKBOOST" "$BATS_TEST_TMPDIR/a b/libsockboost.so"
  SOCKBOOST_LIBRARY="$BATS_TEST_TMPDIR/a b/libsockboost.so" run "$SOCKBOOST" run -- true
  assert_failure 1
  assert_output --partial "contains ':' or a blank"
}

@test "installed, doctor runs the probe from PKGLIBDIR" {
  requires ss
  unset SOCKBOOST_LIBRARY
  install_prefix
  run "$BATS_TEST_TMPDIR/prefix/bin/sockboost" doctor
  assert_success
  assert_output --partial "library                $BATS_TEST_TMPDIR/prefix/lib/sockboost/libsockboost.so"
  assert_output --partial "PASS: tb $BOOSTED_TB"
}
