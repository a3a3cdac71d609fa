#!/usr/bin/env bats
# sockboost run maps its options to the library's SOCKBOOST_* variables.
load helpers

# The library's own log (its settings line at -v) goes to stderr, apart.
env_seen () {
  "$SOCKBOOST" run "$@" -- env 2>/dev/null | grep '^SOCKBOOST_' | grep -v '^SOCKBOOST_LIBRARY=' | sort
}

@test "no options set no variables" {
  run env_seen
  assert_success
  assert_output ""
}

@test "each option sets its variable" {
  run env_seen --sndbuf 4M --no-nodelay --no-cork --scope nbd --force --stats --log-file /tmp/x.%p
  assert_success
  assert_output "$(printf '%s\n' SOCKBOOST_CORK=off SOCKBOOST_FORCE=on \
    SOCKBOOST_LOG_FILE=/tmp/x.%p SOCKBOOST_NODELAY=0 SOCKBOOST_SCOPE=nbd \
    SOCKBOOST_SNDBUF=4M SOCKBOOST_STATS=1)"
}

@test "--opt=value forms work too" {
  run env_seen --sndbuf=off --scope=all --log-file=/tmp/y --no-force
  assert_success
  assert_output "$(printf '%s\n' SOCKBOOST_FORCE=off SOCKBOOST_LOG_FILE=/tmp/y \
    SOCKBOOST_SCOPE=all SOCKBOOST_SNDBUF=off)"
}

@test "valid sizes are accepted" {
  local ok
  for ok in 0 off 65536 64K 64k 2M 1023M 1073741823 1073741824 1G 1g 1024M; do
    run env_seen --sndbuf "$ok"
    assert_success
    assert_output "SOCKBOOST_SNDBUF=$ok"
  done
}

@test "-v sets debug level 2, twice or -vv level 3" {
  run env_seen -v
  assert_output SOCKBOOST_DEBUG=2
  run env_seen -v --verbose
  assert_output SOCKBOOST_DEBUG=3
  run env_seen -vv
  assert_output SOCKBOOST_DEBUG=3
  run env_seen -vvv
  assert_output SOCKBOOST_DEBUG=3
}

@test "-v makes the library log each tuned socket" {
  run "$SOCKBOOST" run -v --log-file "$BATS_TEST_TMPDIR/log.%p" -- \
    python3 -c 'import socket; socket.socketpair()'
  assert_success
  run cat "$BATS_TEST_TMPDIR"/log.*
  assert_output --regexp "sockboost\[python3 [0-9]+\]: fd [0-9]+ unix .*-> $BOOSTED_TB"
}

@test "an option given on the command line overrides the environment" {
  SOCKBOOST_SNDBUF=8M run env_seen --sndbuf 1M
  assert_output SOCKBOOST_SNDBUF=1M
}

@test "--environment prints what run would set, as env -0, and runs nothing" {
  local from_run from_env
  from_env=$(SOCKBOOST_SNDBUF=8M LD_PRELOAD= "$SOCKBOOST" run --sndbuf 1M --no-cork -- env -0 |
    tr '\0' '\n' | grep -E '^(LD_PRELOAD|SOCKBOOST_)' | sort)
  from_run=$(SOCKBOOST_SNDBUF=8M LD_PRELOAD= "$SOCKBOOST" run --environment --sndbuf 1M --no-cork |
    tr '\0' '\n' | sort)
  assert_equal "$from_run" "$from_env"
  [[ $from_run == *SOCKBOOST_SNDBUF=1M* ]] || fail "the option did not override: $from_run"
  # A word among the options is an error, not a command: 'touch' never runs.
  run "$SOCKBOOST" run --environment --sndbuf 1M touch "$BATS_TEST_TMPDIR/ran"
  assert_failure 2
  assert_line --index 0 "sockboost: run: unexpected argument 'touch' where an option was expected"
  [ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "run executed the word"
  run "$SOCKBOOST" run --environment -- touch "$BATS_TEST_TMPDIR/ran"
  assert_failure 2
  [ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "run executed the command after --"
}

@test "run --help says what -v and -vv log, as the library does it" {
  run "$SOCKBOOST" run --help
  assert_output --partial "log the settings at load, then each tuned socket;"
  assert_output --partial "twice (-vv): also every call on a tuned socket"
  # -v: the settings line and the tuned socket; -vv adds per-call lines.
  run "$SOCKBOOST" run -v -- python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"x")'
  assert_success
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: settings: sndbuf 2097152, '
  assert_line --regexp ': fd [0-9]+ unix socketpair sndbuf [0-9]+ -> 4194304$'
  refute_output --partial "passed through"
  run "$SOCKBOOST" run -vv -- python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"x")'
  assert_success
  assert_line --regexp ': fd [0-9]+ unix send 1 bytes -> 1: passed through'
}
