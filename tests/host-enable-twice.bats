#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost host enable is idempotent and safe to run concurrently: the
# same settings again change nothing (the same programs stay attached);
# other settings replace the programs, the old ones detached; enables
# at once all succeed and leave one set of programs attached.

load helpers

# The program ids host status names, one per line, sorted.
status_ids () {
  hm_host status --json | jq -r '.links[].program_id' | sort -n
}

@test "host enable twice: the same settings change nothing, others replace the programs" {
  hm_setup
  hm_enable >/dev/null
  local first second
  first=$(status_ids)
  run hm_host enable --cgroup "$HM_CGROUP"
  assert_success
  assert_line --index 0 "host mode was on already for cgroup $HM_CGROUP"
  [ "$(status_ids)" = "$first" ] || fail "enable with the same settings replaced the programs"
  hm_enable --ports 10809 >/dev/null
  second=$(status_ids)
  [ "$(hm_attached_ids "$HM_CGROUP")" = "$second" ] ||
    fail "the cgroup holds other programs than the new ones: $(hm_attached_ids "$HM_CGROUP")"
  hm_wait_objects_gone prog $first
  run hm_host status
  assert_line "filter: ports 10809"
}

@test "host enable four times at once, three rounds: all succeed, one set of programs attached" {
  hm_setup
  local round i pids out=$BATS_TEST_TMPDIR/enable
  for ((round = 0; round < 3; round++)); do
    pids=()
    for i in 0 1 2 3; do
      hm_host enable --cgroup "$HM_CGROUP" --programs "qemu-nbd,p$round$i" >"$out.$i" 2>&1 &
      pids+=($!)
    done
    for i in 0 1 2 3; do
      wait "${pids[i]}" || fail "an enable failed: $(cat "$out.$i")"
    done
    [ "$(hm_attached_ids "$HM_CGROUP")" = "$(status_ids)" ] ||
      fail "the cgroup holds other programs than status names: $(hm_attached_ids "$HM_CGROUP")"
  done
  run hm_host status
  assert_line --regexp '^filter: programs p2[0-3], qemu-nbd$'
}
