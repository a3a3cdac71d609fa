#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost host as a user who is not root: one line that says it needs
# root and why, exit 1, for each command.

load helpers

@test "host enable, disable and status as nobody: one line, exit 1" {
  [ "$(id -u)" -eq 0 ] || sb_skip "needs root, to drop to nobody"
  [ -x "$SB_BUILD/tools/sb-host" ] ||
    sb_skip "sockboost host was not built (needs clang, libbpf-dev and bpftool)"
  requires setpriv
  sockboost_for_nobody
  local command
  for command in enable disable status; do
    run setpriv --reuid=65534 --regid=65534 --clear-groups \
      env "${NOBODY_ENV[@]}" "$NOBODY_SOCKBOOST" host "$command"
    assert_failure 1
    assert_output "sockboost host: $command: needs root: host mode attaches BPF programs to a cgroup and keeps them under a root-only directory"
  done
}
