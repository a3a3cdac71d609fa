#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode never lowers a send buffer.  Asked for more than
# net.core.wmem_max lets SO_SNDBUF grant (BPF cannot force), it must
# leave alone a unix socket that already has more than that grant: here
# a client of a process named qemu-nbd whose buffer was forced with
# SO_SNDBUFFORCE to three times wmem_max (25165824 with this machine's
# 4194304) keeps it through connect, where the grant is twice wmem_max
# (8388608).  A socket below the grant is still raised to it.

load helpers

@test "host mode: a unix socket forced above what SO_SNDBUF grants keeps its buffer" {
  hm_setup
  local wmem_max forced grant enabled
  wmem_max=$(cat /proc/sys/net/core/wmem_max)
  [ "$wmem_max" -le $((64 << 20)) ] ||
    sb_skip "net.core.wmem_max is $wmem_max: a forced buffer above it would not fit an int"
  forced=$((3 * wmem_max)) grant=$((2 * wmem_max))
  enabled=$(hm_enable --sndbuf $((4 * wmem_max)))
  grep -q '^  unix: send buffer' <<<"$enabled" ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later): $enabled"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" \
    --name qemu-nbd --force-sndbuf "$forced"
  assert_success
  echo "forced to $((2 * forced)), then connected: $output" >&3
  [ "$(jq .unix_before <<<"$output")" -eq $((2 * forced)) ] ||
    fail "the client's buffer was not forced to $((2 * forced)): $output"
  [ "$(jq -c .unix_sndbuf <<<"$output")" = "[$((2 * forced)),$grant]" ] ||
    fail "wanted the forced client to keep $((2 * forced)), the accepted socket raised to $grant: $output"
}
