#!/usr/bin/env bats
# sockboost documents itself: --help for every command, --version, and a
# man page that renders cleanly and covers every option and variable.
load helpers

render_man () {
  LC_ALL=C groff -man -Tascii -P-cbou "$SB_ROOT/doc/sockboost.1"
}

@test "--help names every command and the exit codes" {
  run "$SOCKBOOST" --help
  assert_success
  local cmd
  for cmd in run doctor status bench; do
    assert_output --partial "sockboost $cmd"
  done
  assert_output --partial "127"
}

@test "every command has its own --help" {
  local cmd
  for cmd in run doctor status; do
    run "$SOCKBOOST" "$cmd" --help
    assert_success
    assert_line --index 0 --partial "Usage: sockboost $cmd"
  done
}

@test "--version prints the name and a version" {
  run "$SOCKBOOST" --version
  assert_success
  assert_output --regexp '^sockboost [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "the man page renders without warnings" {
  requires groff
  run bash -c 'LC_ALL=C groff -man -Tascii -ww -z "$SB_ROOT/doc/sockboost.1" 2>&1'
  assert_success
  assert_output ""
}

@test "the man page documents every variable the library reads" {
  requires groff
  local page var vars
  page=$(render_man)
  # The library's own list of what it reads.
  vars=$("$SB_BUILD/tools/sb-config" --variables | awk -F'\t' '$1 == "variable" { print $2 }')
  [ -n "$vars" ] || fail "sb-config --variables listed no variable"
  for var in $vars; do
    grep -qF -- "$var" <<<"$page" || fail "$var is not in sockboost(1)"
  done
}
