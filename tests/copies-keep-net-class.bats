#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Root's tools take copies of other processes' sockets (pidfd_getfd):
# status PID, attach, host mode's adoption at enable and the watcher.
# The kernel gives a socket so copied the cgroup v1 net_cls classid and
# net_prio index of the process that takes the copy, as for SCM_RIGHTS:
# taken from root's cgroup, a copy would move the socket to root's
# class (classid 0, index 1) on a host that classifies traffic with
# those controllers.  Here a process in cgroups of the test's (classid
# 1:1, its own net_prio index) has its sockets looked at by each tool:
# every socket still carries its class after, as the kernel's socket
# iterators read it.  Where the class cannot be kept, no copy is taken,
# and the tool says why.

load helpers

@test "host status PID: the process's sockets keep their net_cls class and net_prio index" {
  hm_setup
  nc_setup net_cls,net_prio
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  nc_assert_class "$NC_HOLDER" "before status PID"
  run nc_in "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER"
  assert_success
  assert_line --regexp "^process $NC_HOLDER: [0-9]+ sockets? tuned by host mode"
  nc_assert_class "$NC_HOLDER" "after status PID"
}

@test "host status PID: net_cls and net_prio in hierarchies of their own, both kept" {
  hm_setup
  nc_setup net_cls net_prio
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  nc_assert_class "$NC_HOLDER" "before status PID"
  run nc_in "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER"
  assert_success
  nc_assert_class "$NC_HOLDER" "after status PID"
}

# bats test_tags=sanitize
@test "sockboost attach: the process's sockets keep their class" {
  use_attach_helper
  nc_setup net_cls,net_prio
  nc_holder net-class-holder
  nc_assert_class "$NC_HOLDER" "before attach"
  run nc_in "$SOCKBOOST" attach "$NC_HOLDER"
  assert_success
  assert_line --regexp "fd [0-9]+ unix connected sndbuf [0-9]+ -> $BOOSTED_TB"
  nc_assert_class "$NC_HOLDER" "after attach"
}

@test "host enable: the listener it adopts keeps its class" {
  hm_setup
  nc_setup net_cls,net_prio
  nc_holder qemu-nbd "$HM_CGROUP"
  nc_assert_class "$NC_HOLDER" "before enable"
  run nc_in "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  assert_success
  assert_line "  tcp: listeners that were there already: 1, of 1 process the filter takes, got TCP_NODELAY too"
  nc_assert_class "$NC_HOLDER" "after enable"
}

@test "host watcher: the sockets it tunes keep their class" {
  requires jq
  hm_setup
  nc_setup net_cls,net_prio
  local deadline watcher
  run nc_in "$SOCKBOOST" host enable --watcher --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  assert_success
  watcher=$(hw_watcher_pid) || fail "no watcher after enable --watcher"
  cleanup_push "kill -KILL $watcher 2>/dev/null"
  cleanup_push "hm_host disable >/dev/null 2>&1"
  nc_holder qemu-nbd "$HM_CGROUP"
  deadline=$((SECONDS + 20))
  until [ "$(hw_watcher_count set)" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "the watcher set nothing: $(hm_host status --json)"
    sleep 0.1
  done
  nc_assert_class "$NC_HOLDER" "after the watcher"
}

@test "host status PID where the hierarchy is not mounted: no copy, says why" {
  hm_setup
  nc_setup net_cls,net_prio
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  run "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER"
  assert_failure 1
  assert_output "sockboost host: status: process $NC_HOLDER: its sockets were not copied: a copy would move them from its net_cls,net_prio cgroup /test to ours, and that cgroup is in a hierarchy not mounted here"
  nc_assert_class "$NC_HOLDER" "after status PID"
}

@test "host status PID where net_cls shares its hierarchy with another controller: no copy, says why" {
  hm_setup
  nc_setup net_cls,perf_event
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  run nc_in "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER"
  assert_failure 1
  assert_output "sockboost host: status: process $NC_HOLDER: its sockets were not copied: a copy would move them from its net_cls,perf_event cgroup /test to ours, and that cgroup is in a hierarchy shared with other controllers, which is never joined"
  nc_assert_class "$NC_HOLDER" "after status PID"
}

# bats test_tags=sanitize
@test "sockboost attach where the hierarchy is not mounted: nothing touched, says why" {
  use_attach_helper
  nc_setup net_cls,net_prio
  local before
  nc_holder net-class-holder
  before=$(unix_tbs_of_pid "$NC_HOLDER")
  run "$SOCKBOOST" attach "$NC_HOLDER"
  assert_failure 1
  assert_output "sockboost attach: $NC_HOLDER: its sockets were not copied: a copy would move them from its net_cls,net_prio cgroup /test to ours, and that cgroup is in a hierarchy not mounted here"
  [ "$(unix_tbs_of_pid "$NC_HOLDER")" = "$before" ] ||
    fail "attach changed a send buffer: $before -> $(unix_tbs_of_pid "$NC_HOLDER")"
  nc_assert_class "$NC_HOLDER" "after attach"
}

@test "host enable where the hierarchy is not mounted: the listener is not adopted, and enable says why" {
  hm_setup
  nc_setup net_cls,net_prio
  nc_holder qemu-nbd "$HM_CGROUP"
  run hm_host enable --cgroup "$HM_CGROUP"
  assert_success
  assert_line "  tcp: listeners that were there already: 0, of 1 process the filter takes, got TCP_NODELAY too"
  assert_line "  tcp: the listeners of 1 process were left as they were (process $NC_HOLDER: its sockets were not copied: a copy would move them from its net_cls,net_prio cgroup /test to ours, and that cgroup is in a hierarchy not mounted here)"
  nc_assert_class "$NC_HOLDER" "after enable"
}

@test "host status PID of a process in our own net_cls cgroup: nothing is joined" {
  requires strace
  hm_setup
  nc_setup net_cls,net_prio
  local trace=$BATS_TEST_TMPDIR/trace
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  nc_in sh -c 'echo "$1" >"$2/cgroup.procs"' _ "$NC_HOLDER" "${NC_CGROUPS[0]%/test}" ||
    fail "cannot move the holder back to the root of the hierarchy"
  nc_in strace -o "$trace" -e trace=openat,openat2,write \
    "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER" >/dev/null ||
    fail "status PID failed"
  grep -q "/proc/$NC_HOLDER/cgroup" "$trace" ||
    fail "status PID did not read the process's cgroups: $(cat "$trace")"
  run grep -E 'mountinfo|cgroup\.procs' "$trace"
  assert_failure
}

@test "host status PID of a process that moves meanwhile: its sockets end in its new class" {
  requires strace
  hm_setup
  nc_setup net_cls,net_prio
  local other=${NC_CGROUPS[0]%/test}/other
  nc_in mkdir "$other" || fail "cannot make a second cgroup"
  cleanup_push "nc_remove_cgroup '$other'"
  nc_in sh -c 'echo "$1" >"$2/net_cls.classid"' _ $((0x10002)) "$other"
  hm_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  # Each copy waits 0.5 s: the process moves after the second.
  nc_in strace -o /dev/null -e trace=pidfd_getfd \
    -e inject=pidfd_getfd:delay_exit=500000 \
    "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$NC_HOLDER" >/dev/null 3>&- &
  local status_pid=$!
  sleep 1.2
  nc_in sh -c 'echo "$1" >"$2/cgroup.procs"' _ "$NC_HOLDER" "$other" ||
    fail "cannot move the holder"
  wait "$status_pid" || fail "status PID failed"
  NC_CGROUPS=("$other")
  nc_assert_class "$NC_HOLDER" "after status PID"
}

@test "host watcher where the hierarchy is not mounted: it gives the sockets up, their class kept" {
  requires jq
  hm_setup
  nc_setup net_cls,net_prio
  local deadline
  hw_enable >/dev/null
  nc_holder qemu-nbd "$HM_CGROUP"
  deadline=$((SECONDS + 20))
  until [ "$(hw_watcher_count given_up)" -ge 2 ]; do
    [ $SECONDS -lt $deadline ] || fail "the watcher gave nothing up: $(hm_host status --json)"
    sleep 0.1
  done
  [ "$(hw_watcher_count set)" -eq 0 ] ||
    fail "the watcher set TCP_NODELAY through a copy: $(hm_host status --json)"
  nc_assert_class "$NC_HOLDER" "after the watcher"
}
