#!/usr/bin/env bats
# A test whose tool is missing skips with the reason, and tests/run-tests
# counts it; in strict mode (--strict, SB_STRICT=1, make check STRICT=1,
# which .ci/run uses) every skip is a failure, also a bare bats skip.
load helpers

# tests/run-tests ARGS... on the fixture, as from a shell: without this
# bats run's variables, its libexec directory in PATH and its fd 3, which
# the inner bats would take as its own; SB_STRICT only as STRICT_ENV sets it.
run_tests () {
  local path
  path=$(tr : '\n' <<<"$PATH" | grep -v '/libexec/bats-core$' | paste -sd :)
  env -i PATH="$path" HOME="$HOME" TMPDIR="$BATS_TEST_TMPDIR" \
    ${STRICT_ENV:+"$STRICT_ENV"} "$SB_ROOT/tests/run-tests" "$@" "$FIXTURE" 3>&-
}

setup () {
  FIXTURE=$BATS_TEST_TMPDIR/fixture.bats
  # printf, not a here-document: bats would count @test lines here as
  # tests of this file.
  printf '%s\n' "load '$SB_ROOT/tests/helpers'" \
    '@test "passes" { true; }' \
    '@test "needs a tool that is not there" { requires sb-no-such-tool true; }' \
    '@test "skips by itself" { skip "a reason of its own"; }' >"$FIXTURE"
}

@test "by default a missing tool skips with its reason, and the skips are counted" {
  STRICT_ENV= run run_tests
  assert_success
  assert_line --regexp "^ok 2 needs a tool that is not there # skip needs sb-no-such-tool, not installed"
  assert_line "ok 3 skips by itself # skip a reason of its own"
  assert_equal "${lines[-1]}" "1 passed, 0 failed, 2 skipped"
}

@test "in strict mode every skip is a failure, with its reason" {
  local strict
  for strict in "--strict" "SB_STRICT=1"; do
    if [ "$strict" = --strict ]; then
      STRICT_ENV= run run_tests --strict
    else
      STRICT_ENV=SB_STRICT=1 run run_tests
    fi
    assert_failure 1
    assert_line --regexp "^not ok 2 needs a tool that is not there"
    assert_output --partial "skipped, which strict mode (SB_STRICT=1) does not allow: needs sb-no-such-tool"
    assert_line "not ok - strict mode (SB_STRICT=1) allows no skip: ok 3 skips by itself # skip a reason of its own"
    assert_equal "${lines[-1]}" "1 passed, 2 failed, 0 skipped"
  done
}

# What SB_STRICT the tests get from 'make ARGS...', run as from a shell
# (no SB_STRICT, nor the MAKEFLAGS of a make check this test runs in).
strict_from_make () {
  env -i PATH="$PATH" make -s -C "$SB_ROOT" --no-print-directory "$@" \
    --eval 'sb-show-strict: ; @echo "strict=$$SB_STRICT"' sb-show-strict
}

@test "make check STRICT=1 hands strict mode to the tests; .ci/run asks for it" {
  run strict_from_make STRICT=1
  assert_success
  assert_output "strict=1"
  run strict_from_make
  assert_success
  assert_output "strict="
  grep -qx 'exec make check WERROR=1 STRICT=1' "$SB_ROOT/.ci/run"
}
