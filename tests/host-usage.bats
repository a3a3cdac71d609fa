#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost host's usage errors: one line saying what is wrong, the hint
# to --help, exit 2, before anything is checked or changed (so also as
# a user who could not run it); --help names every option.

load helpers

setup () {
  [ -x "$SB_BUILD/tools/sb-host" ] ||
    sb_skip "sockboost host was not built (needs clang, libbpf-dev and bpftool)"
}

usage_fails () {
  run "$SOCKBOOST" host "${@:2}"
  assert_failure 2
  assert_line --index 0 "sockboost host: $1"
  assert_line --index 1 "Try 'sockboost host --help' for more information."
  [ "${#lines[@]}" -eq 2 ]
}

@test "host: usage errors exit 2 with one line and the hint" {
  usage_fails "no command given (enable, disable or status)"
  usage_fails "unknown command 'start' (enable, disable or status)" start
  usage_fails "status: --programs is an option of enable" status --programs qemu-nbd
  usage_fails "disable: --cgroup is an option of enable" disable --cgroup /
  usage_fails "enable: --json is an option of status" enable --json
  usage_fails "enable: --programs, --ports and --all exclude each other" enable --all --ports 10809
  usage_fails "invalid --programs: '*' alone names every program: use --all" enable --programs '*'
  usage_fails "invalid --programs: 'a\\x1bb' is not a program name (printable, no blanks, '*' only at the end)" enable --programs $'a\eb'
  usage_fails "invalid --ports: '70000' is not a port (1 to 65535)" enable --ports 10809,70000
  usage_fails "invalid --sndbuf '2X': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off" enable --sndbuf 2X
  usage_fails "status: unexpected argument 'now'" status now
  usage_fails "unknown or ambiguous option '--frob'" enable --frob
}

@test "host --help names every option and command" {
  run "$SOCKBOOST" host --help
  assert_success
  for word in enable disable status --cgroup --programs --ports --all --sndbuf --pin-dir --json --verbose; do
    assert_output --partial "$word"
  done
}
