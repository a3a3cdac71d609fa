#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# status says what is attached from the kernel's view, not only from the
# pins' names, and disable removes it even where the pins are not where
# they should be.  An enable killed (SIGKILL, injected by strace) at the
# rename that puts its generation in place leaves its programs attached
# and tuning, pinned as "staging": status says on, in text and JSON, and
# so does doctor.  Pins renamed away from the pin directory keep their
# programs attached: status says on (its pins are gone), and disable
# detaches them there.

load helpers

# Enable, killed by SIGKILL at its first rename of a pin directory
# (whichever rename call this libc makes, from a run that is not killed).
enable_killed_at_rename () {
  local log=$BATS_TEST_TMPDIR/rename.log call
  strace -o "$log" -e trace=renameat2,renameat,rename "$HM_SB_HOST" enable \
    --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS" >/dev/null
  "$HM_SB_HOST" disable --pin-dir "$HM_PINS" >/dev/null
  call=$(grep -o -m 1 '^rename[a-z0-9]*' "$log") ||
    fail "enable renames nothing that strace sees: $(cat "$log")"
  run strace -o /dev/null -e trace="$call" -e inject="$call":signal=KILL \
    "$HM_SB_HOST" enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  [ "$status" -eq 137 ] || fail "enable was not killed at $call ($status): $output"
}

@test "host enable killed at its pin rename: status and doctor say on, disable removes it" {
  hm_setup
  requires strace
  local ns_problem
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  enable_killed_at_rename
  [ -n "$(hm_attached_ids "$HM_CGROUP")" ] || fail "the killed enable left nothing attached"
  run hm_host status
  assert_success
  echo "$output" | head -n 2 >&3
  assert_line --index 0 --regexp "^host mode: on, pinned as staging: an enable was interrupted"
  run hm_host status --json
  assert_success
  [ "$(jq -c '[.on, .interrupted, .pinned]' <<<"$output")" = '[true,true,"staging"]' ] ||
    fail "status --json does not say on: $output"
  run hm_with_default_pins "$SOCKBOOST" doctor --json
  [ "$(jq -c '.host_mode.state.on' <<<"$output")" = true ] ||
    fail "doctor does not say on: $(jq -c .host_mode <<<"$output")"
  run hm_host disable
  assert_success
  [ -z "$(hm_attached_ids "$HM_CGROUP")" ] ||
    fail "programs left on the cgroup: $(hm_attached_ids "$HM_CGROUP")"
}

@test "host pins renamed away: status says on, disable detaches the programs there" {
  hm_setup
  hm_enable >/dev/null
  mv "$HM_PINS/current" "$HM_BPFFS/elsewhere"
  run hm_host status --json
  assert_success
  echo "pins renamed away: $(jq -c '[.on, .pinned]' <<<"$output")" >&3
  [ "$(jq -c '[.on, .pinned]' <<<"$output")" = '[true,null]' ] ||
    fail "status does not say on with its pins gone: $output"
  run hm_host status
  assert_line --index 0 --regexp "^host mode: on, not pinned"
  run hm_host disable
  assert_success
  assert_output --regexp "detached [0-9]+ programs? whose pins were not in "
  [ -z "$(hm_attached_ids "$HM_CGROUP")" ] ||
    fail "programs left on the cgroup: $(hm_attached_ids "$HM_CGROUP")"
  run hm_host status --json
  [ "$(jq -c .on <<<"$output")" = false ] || fail "status still says on: $output"
}
