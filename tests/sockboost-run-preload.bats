#!/usr/bin/env bats
# sockboost run appends the library to LD_PRELOAD exactly once and keeps
# what was there.
load helpers

preload_seen () {
  # The loader complains about the made-up entries; that is not the point.
  "$SOCKBOOST" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"' 2>/dev/null
}

@test "run sets LD_PRELOAD to the library when it was empty" {
  unset LD_PRELOAD
  run preload_seen
  assert_success
  assert_output "$LIBSOCKBOOST"
}

@test "run appends the library after existing entries" {
  LD_PRELOAD=/lib/other.so run preload_seen
  assert_success
  assert_output "/lib/other.so:$LIBSOCKBOOST"
}

@test "run appends after space-separated entries and drops trailing separators" {
  LD_PRELOAD='/lib/a.so /lib/b.so: ' run preload_seen
  assert_success
  assert_output "/lib/a.so /lib/b.so:$LIBSOCKBOOST"
}

@test "run does not add a second copy when the library is already there" {
  LD_PRELOAD="/lib/a.so:$LIBSOCKBOOST /lib/b.so" run preload_seen
  assert_success
  assert_output "/lib/a.so:$LIBSOCKBOOST /lib/b.so"
}

@test "run recognises the library through a symlink" {
  ln -s "$LIBSOCKBOOST" "$BATS_TEST_TMPDIR/alias.so"
  LD_PRELOAD="$BATS_TEST_TMPDIR/alias.so" run preload_seen
  assert_success
  assert_output "$BATS_TEST_TMPDIR/alias.so"
}

@test "nested sockboost run keeps a single copy" {
  unset LD_PRELOAD
  run "$SOCKBOOST" run -- "$SOCKBOOST" run -- sh -c 'printf "%s\n" "$LD_PRELOAD"'
  assert_success
  assert_output "$LIBSOCKBOOST"
}

@test "the library is really loaded into the command" {
  run "$SOCKBOOST" run -- sh -c 'grep -c libsockboost.so /proc/$$/maps'
  assert_success
  refute_output 0
}
