#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A loader killed anywhere in enable leaves nothing that the next enable
# does not clean: killed (SIGKILL, injected by strace at a given bpf or
# rename call) during the self-test, after attaching, half-way through
# pinning, and between removing the old generation and renaming the new
# one into its place.  After each, enable turns host mode on whole, with
# exactly its own programs attached to the cgroup and no self-test
# cgroup left; at the end disable leaves nothing attached.

load helpers

# Enable with the programs LIST, killed by SIGKILL as strace injects it
# per INJECT (an strace -e inject= value).
killed_enable () {
  run strace -o /dev/null -e trace=bpf,renameat,renameat2 -e inject="$1" \
    "$HM_SB_HOST" enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS" --programs "$2"
  [ "$status" -eq 137 ] || fail "enable was not killed ($1, status $status): $output"
}

# Host mode is on, whole, and the cgroup holds its programs and no others.
whole_and_alone () {
  run hm_host status --json
  assert_success
  [ "$(jq .whole <<<"$output")" = true ] || fail "not whole after $1: $output"
  [ "$(hm_attached_ids "$HM_CGROUP")" = "$(jq -r '.links[].program_id' <<<"$output" | sort -n)" ] ||
    fail "after $1 the cgroup holds other programs: $(hm_attached_ids "$HM_CGROUP")"
  [ -z "$(find "$HM_CGROUP" -mindepth 1 -maxdepth 1 -type d)" ] ||
    fail "after $1 a self-test cgroup is left: $(ls "$HM_CGROUP")"
}

@test "host enable killed anywhere: the next enable is whole, disable leaves nothing" {
  hm_setup
  requires strace
  local log=$BATS_TEST_TMPDIR/bpf.log calls selftest attach pin n round=0
  # Where the steps come among the loader's bpf calls, from a run that
  # replaces a generation, as each killed one does.
  hm_enable >/dev/null
  strace -o "$log" -e trace=bpf "$HM_SB_HOST" enable --cgroup "$HM_CGROUP" \
    --pin-dir "$HM_PINS" --programs qemu-img >/dev/null
  calls=$(grep '^bpf(' "$log" | grep -n '')
  selftest=$(grep -m 1 'BPF_LINK_CREATE' <<<"$calls" | cut -d: -f1)
  attach=$(grep 'BPF_LINK_CREATE' <<<"$calls" | tail -n 1 | cut -d: -f1)
  pin=$(grep 'BPF_OBJ_PIN' <<<"$calls" | sed -n 7p | cut -d: -f1)
  [ -n "$selftest" ] && [ -n "$attach" ] && [ -n "$pin" ] ||
    fail "cannot find the steps among the bpf calls: $calls"
  for n in "$((selftest + 1))" "$attach" "$pin"; do
    killed_enable "bpf:signal=KILL:when=$n" "qemu-nbd,q$((round++))"
    hm_enable >/dev/null
    whole_and_alone "a kill at bpf call $n"
  done
  for n in renameat renameat2; do
    grep -q "^$n(" <(strace -e trace=$n -o /dev/stdout "$HM_SB_HOST" enable \
      --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS" --programs "q$((round++))" 2>/dev/null) || continue
    killed_enable "$n:signal=KILL" "qemu-nbd,q$((round++))"
    run hm_host status
    assert_line --index 0 --partial "host mode: on, pinned as staging: an enable was interrupted"
    hm_enable >/dev/null
    whole_and_alone "a kill before the rename"
  done
  run hm_host disable
  assert_success
  [ -z "$(hm_attached_ids "$HM_CGROUP")" ] ||
    fail "programs left on the cgroup: $(hm_attached_ids "$HM_CGROUP")"
}
