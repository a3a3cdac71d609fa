#!/usr/bin/env bats
# Every program of sockboost answers a usage error the same way: exit 2,
# nothing on stdout, and on stderr one line "PROGRAM: what is wrong" and
# one "Try 'PROGRAM --help' for more information." (common/report.c for
# the C programs; the shell and Python commands print the same form).
bats_require_minimum_version 1.5.0
load helpers

# Run ARGS...; expect the two lines, the first starting with NAME and the
# hint naming HELP.
assert_one_usage_form () {
  local name=$1 help=$2
  shift 2
  run --separate-stderr "$@"
  assert_equal "$status" 2
  assert_equal "$output" ""
  [ "$(wc -l <<<"$stderr")" -eq 2 ] || fail "$*: not two lines: $stderr"
  [[ ${stderr%%$'\n'*} == "$name: "?* ]] || fail "$*: no '$name: ' line: $stderr"
  assert_equal "${stderr#*$'\n'}" "Try '$help --help' for more information."
}

@test "the NBD programs" {
  assert_one_usage_form sbnbd-server sbnbd-server "$SBNBD_SERVER" --bogus
  assert_one_usage_form sbnbd-client sbnbd-client "$SBNBD_CLIENT" --bogus
}

@test "sockboost and its commands" {
  use_attach_helper
  assert_one_usage_form sockboost sockboost "$SOCKBOOST" --bogus
  for cmd in run doctor status libvirt bench; do
    assert_one_usage_form "sockboost: $cmd" "sockboost $cmd" "$SOCKBOOST" "$cmd" --bogus
  done
  assert_one_usage_form "sockboost attach" "sockboost attach" "$SOCKBOOST" attach --bogus
}

@test "the helper programs: benchmarks and sb-config" {
  local prog
  for prog in sb-socketpair-bench sb-overhead-bench sb-config; do
    assert_one_usage_form "$prog" "$prog" "$SB_BUILD/tools/$prog" --bogus
  done
  for prog in sb-socketpair-bench sb-overhead-bench; do
    assert_one_usage_form "$prog" "$prog" "$SB_BUILD/tools/$prog" --json extra args
  done
  assert_one_usage_form sb-config sb-config "$SB_BUILD/tools/sb-config" --settings extra
  run -2 "$SB_BUILD/tools/sb-socketpair-bench" --total $'1\e[2J'
  assert_output --partial "invalid size '1\\x1b[2J'"
  assert_one_usage_form sb-config sb-config "$SB_BUILD/tools/sb-config" --size $'1\e[2J'
  [[ $stderr == "sb-config: --size: invalid size '1\x1b[2J': expected a size such as "* ]] ||
    fail "sb-config --size: $stderr"
}

@test "the demo" {
  assert_one_usage_form demo tools/demo "$SB_ROOT/tools/demo" --bogus
}
