#!/usr/bin/env bats
# sockboost run --sndbuf takes the library's whole range, up to 1G: the
# library is asked for it and the kernel grants the most it can (tb
# 2147483646, twice INT_MAX / 2) when the program may force it.
load helpers

setup () {
  requires ss
}

@test "--sndbuf 1G reaches the library, which asks the kernel for the most it grants" {
  skip_unless_cap_net_admin
  local out=$BATS_TEST_TMPDIR/probe.out
  "$SOCKBOOST" run --sndbuf 1G --force -- "$SB_BUILD/tools/sb-probe" "$BATS_TEST_TMPDIR/p.sock" \
    >"$out" 2>"$BATS_TEST_TMPDIR/probe.err" 3>&- &
  kill_at_teardown $!
  wait_for_file "$out"
  wait_for_unix_tb $! 2147483646
  [ ! -s "$BATS_TEST_TMPDIR/probe.err" ] || fail "the library complained: $(cat "$BATS_TEST_TMPDIR/probe.err")"
}

@test "--sndbuf 1G without CAP_NET_ADMIN is clipped at wmem_max, as the kernel does" {
  requires setpriv
  local out=$BATS_TEST_TMPDIR/probe.out wmem_max
  wmem_max=$(cat /proc/sys/net/core/wmem_max)
  [ "$wmem_max" -lt 1073741823 ] || skip "net.core.wmem_max does not clip 1G here"
  setpriv --bounding-set=-net_admin "$SOCKBOOST" run --sndbuf 1G -- \
    "$SB_BUILD/tools/sb-probe" "$BATS_TEST_TMPDIR/p.sock" >"$out" 2>/dev/null 3>&- &
  kill_at_teardown $!
  wait_for_file "$out"
  wait_for_unix_tb $! $((2 * wmem_max))
}
