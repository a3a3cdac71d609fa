#!/usr/bin/env bats
# sockboost run warns when the loader will ignore LD_PRELOAD: setuid,
# setgid and file-capability programs; the command still runs.
load helpers

privileged_copy () {
  cp "$(type -P true)" "$BATS_TEST_TMPDIR/priv"
  chmod "$1" "$BATS_TEST_TMPDIR/priv"
}

@test "a setuid program gets a warning and still runs" {
  privileged_copy 4755
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/priv"
  assert_success
  assert_output --partial "warning: $BATS_TEST_TMPDIR/priv is setuid/setgid"
  assert_output --partial "LD_PRELOAD"
}

@test "a setgid program gets a warning" {
  privileged_copy 2755
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/priv"
  assert_success
  assert_output --partial "is setuid/setgid"
}

@test "a program with file capabilities gets a warning" {
  requires getcap setcap
  privileged_copy 0755
  setcap cap_net_raw+ep "$BATS_TEST_TMPDIR/priv" 2>/dev/null ||
    skip "cannot set file capabilities here (needs CAP_SETFCAP and xattr support)"
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/priv"
  assert_success
  assert_output --partial "has file capabilities"
  assert_output --partial "cap_net_raw"
}

@test "an ordinary program gets no warning" {
  privileged_copy 0755
  run "$SOCKBOOST" run -- "$BATS_TEST_TMPDIR/priv"
  assert_success
  assert_output ""
}
