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
  usage_fails "no command given (enable, disable, status, check or watch)"
  usage_fails "unknown command 'start' (enable, disable, status, check or watch)" start
  usage_fails "status: --programs is not an option of status" status --programs qemu-nbd
  usage_fails "disable: --cgroup is not an option of disable" disable --cgroup /
  usage_fails "enable: --json is not an option of enable" enable --json
  usage_fails "check: --pin-dir is not an option of check" check --pin-dir /x
  usage_fails "status: '0' is not a process id" status 0
  usage_fails "status: unexpected argument '2'" status 1 2
  usage_fails "enable: unexpected argument '1'" enable 1
  usage_fails "enable: --programs, --ports and --all exclude each other" enable --all --ports 10809
  usage_fails "invalid --programs: '*' alone names every program: use --all" enable --programs '*'
  usage_fails "invalid --programs: 'a\\x1bb' is not a program name (printable, no blanks, '*' only at the end)" enable --programs $'a\eb'
  usage_fails "invalid --ports: '70000' is not a port (1 to 65535)" enable --ports 10809,70000
  usage_fails "invalid --sndbuf '2X': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off" enable --sndbuf 2X
  usage_fails "status: 'now' is not a process id" status now
  usage_fails "unknown or ambiguous option '--frob'" enable --frob
}

@test "host --help names every option and command" {
  run "$SOCKBOOST" host --help
  assert_success
  for word in enable disable status check PID --cgroup --programs --ports --all --sndbuf --pin-dir --json --verbose; do
    assert_output --partial "$word"
  done
}
