#!/usr/bin/env bats
# sockboost attach follows the library's SOCKBOOST_FORCE rule: a request
# above net.core.wmem_max is forced (SO_SNDBUFFORCE) when attach may, and
# clipped with a warning under SOCKBOOST_FORCE=off.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  skip_unless_cap_net_admin
  WMEM_MAX=$(cat /proc/sys/net/core/wmem_max)
  # Twice wmem_max, as a request: always above it.
  REQUEST=$((2 * WMEM_MAX))
  start_holder
}

@test "above wmem_max, attach forces the request" {
  run "$SOCKBOOST" attach --sndbuf "$REQUEST" "$HOLDER_PID"
  assert_success
  assert_equal "$(grep -c "unix connected sndbuf $DEFAULT_TB -> $((2 * REQUEST))\$" <<<"$output")" 2
  run unix_tbs_of_pid "$HOLDER_PID"
  assert_line "$((2 * REQUEST))"
}

@test "SOCKBOOST_FORCE=off: clipped at wmem_max, with the library's advice" {
  SOCKBOOST_FORCE=off run "$SOCKBOOST" attach --sndbuf "$REQUEST" "$HOLDER_PID"
  assert_success
  assert_equal "$(grep -c "unix connected sndbuf $DEFAULT_TB -> $((2 * WMEM_MAX))\$" <<<"$output")" 2
  assert_line "sockboost attach: warning: net.core.wmem_max is $WMEM_MAX, below the $REQUEST requested: run 'sysctl -w net.core.wmem_max=$REQUEST' or let attach force it (SOCKBOOST_FORCE=auto, with CAP_NET_ADMIN)"
}

@test "a malformed SOCKBOOST_FORCE gets one warning and the default" {
  SOCKBOOST_FORCE=sometimes run "$SOCKBOOST" attach --sndbuf "$REQUEST" "$HOLDER_PID"
  assert_success
  assert_line "sockboost attach: warning: ignoring SOCKBOOST_FORCE='sometimes': expected auto, on or off; using the default"
  assert_equal "$(grep -c "sndbuf $DEFAULT_TB -> $((2 * REQUEST))\$" <<<"$output")" 2
}
