#!/usr/bin/env bats
# sockboost run passes the command's arguments through exactly.
load helpers

@test "arguments with spaces, quotes, globs and empty strings arrive intact" {
  cd "$BATS_TEST_TMPDIR"
  touch a1 a2
  run "$SOCKBOOST" run -- printf '<%s>\n' 'two words' '' '*' "it's" '"q"' '$HOME' ' lead' 'a?' '--sndbuf'
  assert_success
  assert_output "$(printf '<%s>\n' 'two words' '' '*' "it's" '"q"' '$HOME' ' lead' 'a?' '--sndbuf')"
}

@test "options after the command belong to the command" {
  run "$SOCKBOOST" run printf '%s\n' -v --no-cork --bogus
  assert_success
  assert_output "$(printf '%s\n' -v --no-cork --bogus)"
}

@test "the command keeps the name it was given as argv[0]" {
  run "$SOCKBOOST" run -- bash -c 'echo "$0"'
  assert_success
  assert_output bash
}

@test "the command's exit status is passed through" {
  run "$SOCKBOOST" run -- sh -c 'exit 42'
  assert_failure 42
}

@test "run execs: the command keeps sockboost's process id" {
  run bash -c '"$SOCKBOOST" run -- sh -c "echo \$\$" & echo "$!"; wait'
  assert_success
  [ "${lines[0]}" = "${lines[1]}" ] || fail "pids differ: ${lines[*]}"
}
