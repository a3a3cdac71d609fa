#!/usr/bin/env bats
# Requests above net.core.wmem_max: forced with CAP_NET_ADMIN, otherwise
# clipped by the kernel with exactly one warning naming the sysctl.

load helpers

setup () {
  requires ss setpriv
  WMEM_MAX=$(cat /proc/sys/net/core/wmem_max)
  # Ask for twice wmem_max so that the request is always clipped.
  ASK=$((2 * WMEM_MAX))
}

# setpriv execs the command, so the background pid is the program's.
NO_NET_ADMIN=(setpriv --inh-caps=-net_admin --bounding-set=-net_admin)

@test "SOCKBOOST_FORCE=auto with CAP_NET_ADMIN: SO_SNDBUFFORCE gives twice the request" {
  skip_unless_cap_net_admin
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_SNDBUF="$ASK" "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' $((2 * ASK)) $((2 * ASK)))"
  run grep -c wmem_max "$BATS_TEST_TMPDIR/out"
  assert_output 0
}

@test "without CAP_NET_ADMIN: clipped to twice wmem_max, one warning for two sockets" {
  start_bg "$BATS_TEST_TMPDIR/out" "${NO_NET_ADMIN[@]}" env LD_PRELOAD="$(preload_value)" \
    SOCKBOOST_SNDBUF="$ASK" "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' $((2 * WMEM_MAX)) $((2 * WMEM_MAX)))"
  run grep -c "net.core.wmem_max is $WMEM_MAX, below the $ASK requested: run 'sysctl -w net.core.wmem_max=$ASK' or give the process CAP_NET_ADMIN" "$BATS_TEST_TMPDIR/out"
  assert_output 1
}

@test "SOCKBOOST_FORCE=off never forces, even with CAP_NET_ADMIN" {
  skip_unless_cap_net_admin
  start_bg_boosted "$BATS_TEST_TMPDIR/out" SOCKBOOST_FORCE=off SOCKBOOST_SNDBUF="$ASK" \
    "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$BATS_TEST_TMPDIR/out" holding
  run unix_tbs_wait "$BG_PID" 2
  assert_output "$(printf '%s\n%s' $((2 * WMEM_MAX)) $((2 * WMEM_MAX)))"
}

@test "SOCKBOOST_FORCE=on forces a request below wmem_max too (strace)" {
  skip_unless_cap_net_admin
  requires strace
  timeout 10 strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=setsockopt \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_FORCE=on SOCKBOOST_SNDBUF=1M \
    timeout 1 "$PRELOAD_SOCKETS" pair stream > "$BATS_TEST_TMPDIR/out" || true
  run grep -c 'SO_SNDBUFFORCE, \[1048576\], 4) = 0' "$BATS_TEST_TMPDIR/trace"
  assert_output 2
  run grep -c "sndbuf 2097152\$" "$BATS_TEST_TMPDIR/out"
  assert_output 2
}
