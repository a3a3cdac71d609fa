#!/usr/bin/env bats
# Every usage error of sockboost is one line saying what is wrong and one
# pointing at the help of the command at fault, on stderr, with exit 2.
bats_require_minimum_version 1.5.0
load helpers

# Run sockboost ARGS...; expect the error line "sockboost: MESSAGE" (or
# MESSAGE as it is, when it starts with "sockboost") and the hint for HELP
# (e.g. "run --help"), nothing else.
assert_usage_error () {
  local message=$1 help=$2
  shift 2
  [[ $message == sockboost* ]] || message="sockboost: $message"
  run --separate-stderr "$SOCKBOOST" "$@"
  assert_equal "$status" 2
  assert_equal "$output" ""
  assert_equal "$stderr" "$message"$'\n'"Try 'sockboost $help' for more information."
}

@test "the overview's usage errors point at sockboost --help" {
  assert_usage_error "no command given" "--help"
  assert_usage_error "unknown command 'frobnicate'" "--help" frobnicate
}

@test "run's usage errors point at sockboost run --help" {
  assert_usage_error "run: no command given" "run --help" run
  assert_usage_error "run: unknown option '--frobnicate'" "run --help" run --frobnicate -- true
  assert_usage_error "run: option '--scope' needs a value" "run --help" run --scope
  assert_usage_error "run: option '--sndbuf' needs a value" "run --help" run --sndbuf -- true
  assert_usage_error "run: invalid --scope 'some': expected all or nbd" "run --help" run --scope some true
}

@test "doctor's usage errors point at sockboost doctor --help" {
  assert_usage_error "doctor: unexpected argument 'extra'" "doctor --help" doctor extra
  assert_usage_error "doctor: unknown option '--frobnicate'" "doctor --help" doctor --frobnicate
}

@test "status's usage errors point at sockboost status --help" {
  assert_usage_error "status: no PID given" "status --help" status
  assert_usage_error "status: invalid PID '12x': expected a process id" "status --help" status 12x
  assert_usage_error "status: unexpected argument '2'" "status --help" status 1 2
  assert_usage_error "status: unknown option '--frobnicate'" "status --help" status --frobnicate 1
}

@test "bench's usage errors point at sockboost bench --help" {
  requires python3
  assert_usage_error "bench: unknown option '--frobnicate'" "bench --help" bench --frobnicate
  assert_usage_error "bench: invalid --repeat '0': expected a positive integer" \
    "bench --help" bench --repeat 0
}

@test "attach's usage errors point at sockboost attach --help" {
  export SOCKBOOST_ATTACH_HELPER=$SB_BUILD/tools/sb-attach
  assert_usage_error "sockboost attach: unknown or ambiguous option '--frobnicate'" "attach --help" \
    attach --frobnicate 1
  assert_usage_error "sockboost attach: no process id given" "attach --help" attach
}
