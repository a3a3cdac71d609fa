#!/usr/bin/env bats
# sockboost attach with bad arguments: one error line, the hint to
# --help, exit 2, and no process touched.  --help says what attach cannot
# do (corking).
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
}

# Run attach with ARGS; expect exit 2 with MESSAGE and the hint.
usage_fails () {
  local message=$1
  shift
  run "$SOCKBOOST" attach "$@"
  assert_failure 2
  assert_equal "${lines[0]}" "sockboost attach: $message"
  assert_equal "${lines[1]}" "Try 'sockboost attach --help' for more information."
  assert_equal "${#lines[@]}" 2
}

@test "no PID, a PID that is not a number, zero" {
  usage_fails "no process id given"
  usage_fails "no process id given" --watch
  usage_fails "'12x' is not a process id" 12x
  usage_fails "'0' is not a process id" 0
  usage_fails "'-5' is not a process id" -- -5
  usage_fails "'99999999999999999999' is not a process id" 99999999999999999999
}

@test "unknown options and missing or bad values" {
  usage_fails "unknown or ambiguous option '--bogus'" --bogus 1
  usage_fails "unknown option '-x'" -x 1
  usage_fails "option '--interval' needs an argument" --interval
  usage_fails "option '--watch' takes no argument" --watch=yes 1
  usage_fails "--interval 0: out of range (1 to 3600000)" --interval 0 1
  usage_fails "--interval 1.5: not a number" --interval 1.5 1
  usage_fails "invalid --sndbuf '2X': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off" --sndbuf 2X 1
}

@test "control characters in a bad argument are escaped" {
  usage_fails "'1\\x1b[2J' is not a process id" $'1\e[2J'
}

@test "--help: the options, and that corking cannot be added from outside" {
  run "$SOCKBOOST" attach --help
  assert_success
  assert_line --index 0 "Usage: sockboost attach [OPTION...] PID..."
  for option in --watch --interval --sndbuf --no-nodelay --dry-run --verbose; do
    assert_output --partial " $option"
  done
  assert_output --partial "Corking (NBD-aware MSG_MORE)"
  assert_output --partial "cannot be added from outside"
  run "$SOCKBOOST" --help
  assert_output --partial "attach [--watch] [OPTION...] PID..."
}

@test "sockboost(1) documents every option of attach" {
  requires groff
  local page opt
  page=$(LC_ALL=C groff -man -Tascii -P-cbou "$SB_ROOT/doc/sockboost.1")
  grep -q '^ATTACH OPTIONS' <<<"$page" || fail "sockboost(1) has no ATTACH OPTIONS"
  for opt in $("$SOCKBOOST" attach --help | grep -o -- '--[a-z-]*' | sort -u); do
    grep -qF -- "$opt" <<<"$(sed -n '/^ATTACH OPTIONS/,/^[A-Z]/p' <<<"$page")" ||
      fail "option $opt is not in sockboost(1) ATTACH OPTIONS"
  done
}
