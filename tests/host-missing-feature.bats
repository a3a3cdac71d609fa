#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Where the kernel lacks what host mode needs, enable says which part
# and why, and what to use instead.  Each lack is made for real, only
# for the command: no cgroup v2 in its mount namespace; no BPF rights
# (root without CAP_SYS_ADMIN, CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON, or
# without CAP_SYS_ADMIN and CAP_PERFMON alone); no unix socket
# hooks (the kernel's answer to the probe for attach type 49 replaced
# by EINVAL, what a kernel before 6.7 answers), where TCP still goes on.

load helpers

INSTEAD="sockboost host: enable: without it, tune libvirt domains with 'sockboost libvirt enable DOMAIN' (at their next start) or running processes with 'sockboost attach --watch PID...'"

@test "host enable without cgroup v2: says so, names what to use instead, exit 1" {
  hm_setup
  local ns_problem
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  run private_mount_ns sh -c 'findmnt -n -t cgroup2 -o TARGET | xargs -r -n 1 umount -l &&
    exec "$@"' sh "$SOCKBOOST" host enable --pin-dir "$HM_PINS"
  assert_failure 1
  assert_line --index 0 "sockboost host: enable: host mode cannot run here: no cgroup v2 file system is mounted (host mode attaches its programs to a cgroup v2 directory)"
  assert_line --index 1 "$INSTEAD"
  [ ! -e "$HM_PINS" ]
}

@test "host enable without BPF rights: says so, names what to use instead, exit 1" {
  hm_setup
  requires capsh
  local drop
  for drop in cap_sys_admin,cap_bpf,cap_perfmon,cap_net_admin cap_sys_admin,cap_perfmon; do
    run capsh --drop="$drop" -- -c \
      '"$0" host enable --cgroup "$1" --pin-dir "$2"' "$SOCKBOOST" "$HM_CGROUP" "$HM_PINS"
    assert_failure 1
    assert_line --index 0 "sockboost host: enable: host mode cannot run here: no right to load BPF programs here (Operation not permitted): it takes CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, or CAP_SYS_ADMIN, which a container may not grant"
    assert_line --index 1 "$INSTEAD"
    [ -z "$(hm_attached_ids "$HM_CGROUP")" ]
    [ ! -e "$HM_PINS" ]
  done
}

@test "host enable without the unix hooks: TCP on, unix not, and says why" {
  hm_setup
  requires strace
  local log=$BATS_TEST_TMPDIR/strace.log n
  # Where the probe comes among the loader's bpf calls, from a dry run.
  strace -o "$log" -e trace=bpf "$HM_SB_HOST" enable --cgroup "$HM_CGROUP" \
    --pin-dir "$HM_PINS" >/dev/null
  "$HM_SB_HOST" disable --pin-dir "$HM_PINS" >/dev/null
  n=$(grep '^bpf(' "$log" | grep -n '' |
      grep -m 1 'BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_CGROUP_SOCK_ADDR, insn_cnt=2,' |
      cut -d: -f1)
  [ -n "$n" ] || fail "no unix probe among the bpf calls: $(cat "$log")"
  run strace -o /dev/null -e trace=bpf -e inject=bpf:error=EINVAL:when="$n" \
    "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  assert_success
  assert_line --partial "  tcp: TCP_NODELAY on the connections they make, and on their listeners"
  assert_line --partial "  unix: not turned on: this kernel has no unix socket hooks (a program for attach type 49 was refused: Invalid argument; they came with Linux 6.7)"
  run hm_host status --json
  assert_success
  # The tuning's programs; the counting's (stalls_*) are a part of their own.
  [ "$(jq -c '[.links[].name | select(startswith("stalls_") | not)]' <<<"$output")" = '["bind4","bind6","connect4","connect6"]' ] ||
    fail "wanted only the TCP programs attached: $output"
  [ "$(jq .unix_sndbuf <<<"$output")" -eq 0 ]
  [ "$(hm_attached_ids "$HM_CGROUP")" = "$(jq -r '.links[].program_id' <<<"$output" | sort -n)" ] ||
    fail "the cgroup holds other programs than status names: $(hm_attached_ids "$HM_CGROUP")"
}
