#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost host disable leaves nothing behind: bpftool finds none of
# the programs, links and maps enable made, nothing is attached to the
# cgroup, the pin directory is gone; status says off, and a second
# disable says it was off already.

load helpers

@test "host disable: no program, link, map or pin left (bpftool)" {
  hm_setup
  hm_enable >/dev/null
  run hm_host status --json
  assert_success
  local progs links maps
  progs=$(jq -r '.links[].program_id' <<<"$output" | sort -n)
  links=$(jq -r '.links[].link_id' <<<"$output")
  maps=$(hm_map_ids_of $progs)
  [ -n "$progs" ] && [ -n "$links" ] && [ -n "$maps" ] || fail "status named no ids: $output"
  [ "$(hm_attached_ids "$HM_CGROUP")" = "$progs" ] ||
    fail "the kernel lists other programs on the cgroup: $(hm_attached_ids "$HM_CGROUP")"
  run hm_host disable
  assert_success
  assert_output "host mode off: its programs are detached and $HM_PINS is removed"
  [ ! -e "$HM_PINS" ]
  [ -z "$(hm_attached_ids "$HM_CGROUP")" ]
  hm_wait_objects_gone link $links
  hm_wait_objects_gone prog $progs
  hm_wait_objects_gone map $maps
  run hm_host status
  assert_output "host mode: off"
  run hm_host disable
  assert_success
  assert_output "host mode was off already"
}
