#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The host tests' cleanup (helpers-host.bash) leaves nothing behind: a
# cgroup of a test's that still holds a process (a test that failed
# half-way) is emptied, its processes killed, and removed.  cgroup files
# report a size of 0 whatever they hold, so whether cgroup.procs lists a
# process is read, not asked of its size.

load helpers

@test "hm_remove_cgroup: a process left in the test's cgroup is killed and the cgroup removed" {
  hm_setup
  local cg pid
  hm_cgroup cg
  (exec "${HM_IN_CGROUP[@]}" "$cg" sleep 1000) 3>&- &
  pid=$!
  local deadline=$((SECONDS + 10))
  until grep -qx "$pid" "$cg/cgroup.procs"; do
    [ $SECONDS -lt $deadline ] || fail "sleep did not join $cg"
    sleep 0.05
  done
  run hm_remove_cgroup "$cg"
  assert_success
  [ ! -d "$cg" ] || fail "$cg is still there"
  deadline=$((SECONDS + 10))
  until process_gone "$pid"; do
    [ $SECONDS -lt $deadline ] || fail "sleep ($pid) outlived its cgroup"
    sleep 0.05
  done
}
