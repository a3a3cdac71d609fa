#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The watcher takes a process by its own name, as the kernel's hooks
# do, not by the name of the thread that binds (QEMU names its threads):
# a listener bound by a thread named worker-7 of a python3 process, with
# the filter naming python3, gets TCP_NODELAY.

load helpers

@test "host watcher: a listener bound by a thread of another name is tuned" {
  requires python3 jq
  hm_setup
  run "$SOCKBOOST" host check --cgroup "$HM_CGROUP" --watcher --json
  assert_success
  [ "$(jq -r .names <<<"$output")" = process ] ||
    skip "names here are the threads': $(jq -r .names_why <<<"$output")"
  hw_enable --programs python3
  run hw_sockets_py watcher-thread.py worker-7
  assert_success
  assert_output True
}
