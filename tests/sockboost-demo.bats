#!/usr/bin/env bats
# tools/demo (make demo) prints a plain/boosted table whose send buffers
# were read from ss while the reads ran.
load helpers

@test "a short demo prints both modes with their send buffers" {
  requires ss
  [ -x "$SBNBD_SERVER" ] && [ -x "$SBNBD_CLIENT" ] || fail "sbnbd-server/client not built"
  run "$SB_ROOT/tools/demo" --size 256M --rounds 1
  assert_success
  assert_line --regexp '^mode +send buffer \(tb\) +GiB/s +ratio$'
  assert_line --regexp "^plain +$DEFAULT_TB +[0-9]+\.[0-9]{2} +1\.00$"
  assert_line --regexp "^boosted +$BOOSTED_TB +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$"
}

@test "the demo leaves no server or socket behind" {
  [ -x "$SBNBD_SERVER" ] && [ -x "$SBNBD_CLIENT" ] || fail "sbnbd-server/client not built"
  TMPDIR=$BATS_TEST_TMPDIR run "$SB_ROOT/tools/demo" --size 64M --rounds 1
  assert_success
  run ls "$BATS_TEST_TMPDIR"
  assert_output ""
  run pgrep -f "sbnbd-server pattern:64M -U $BATS_TEST_TMPDIR/"
  assert_failure
}

@test "a missing piece is a clear error" {
  SB_BUILD=$BATS_TEST_TMPDIR run "$SB_ROOT/tools/demo" --rounds 1
  assert_failure 1
  assert_output --partial "$BATS_TEST_TMPDIR/nbd/sbnbd-server is missing: run 'make' first"
}

@test "bad arguments are usage errors" {
  run "$SB_ROOT/tools/demo" --rounds 0
  assert_failure 2
  run "$SB_ROOT/tools/demo" --bogus
  assert_failure 2
}
