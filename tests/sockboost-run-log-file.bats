#!/usr/bin/env bats
# sockboost run --log-file: a name that cannot be opened gives one warning
# (the log then goes to stderr); a relative name is the one in the
# directory the command started in, even if it changes directory before
# its first line.  (Not in the sanitized pass: the programs here are not
# built with ASan.)

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
}

@test "sockboost run --log-file in a missing directory warns once" {
  run "$SOCKBOOST" run -v --log-file "$D/missing/sb.log" -- sh -c 'echo ran'
  assert_success
  run grep -c "cannot log to '$D/missing/sb.log': No such file or directory" <<< "$output"
  assert_output 1
}

@test "a relative name is taken from the directory the program started in" {
  mkdir "$D/start" "$D/elsewhere"
  cd "$D/start"
  run "$SOCKBOOST" run --stats --log-file rel.log -- \
    python3 -c 'import os, socket; os.chdir("../elsewhere"); socket.socketpair()'
  assert_success
  grep -q ' stats: ' "$D/start/rel.log"
  [ ! -e "$D/elsewhere/rel.log" ]
}
