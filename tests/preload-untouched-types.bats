#!/usr/bin/env bats
# Datagram and seqpacket unix sockets are left exactly as they are.
# bats file_tags=sanitize

load helpers

@test "socketpair SOCK_DGRAM and SOCK_SEQPACKET: no option set, default buffer" {
  requires strace
  for type in dgram seqpacket; do
    timeout 10 strace -f -o "$BATS_TEST_TMPDIR/trace-$type" -e trace=socketpair,setsockopt \
      env LD_PRELOAD="$(preload_value)" timeout 1 "$PRELOAD_SOCKETS" pair "$type" \
      > "$BATS_TEST_TMPDIR/out-$type" || true
    run grep -c 'socketpair(AF_UNIX' "$BATS_TEST_TMPDIR/trace-$type"
    assert_output 1
    run grep -c setsockopt "$BATS_TEST_TMPDIR/trace-$type"
    assert_output 0
    run grep -c "sndbuf $DEFAULT_TB\$" "$BATS_TEST_TMPDIR/out-$type"
    assert_output 2
  done
}

@test "the same program with SOCK_STREAM is tuned (the check above can fail)" {
  timeout 1 env LD_PRELOAD="$(preload_value)" "$PRELOAD_SOCKETS" pair stream \
    > "$BATS_TEST_TMPDIR/out" || true
  run grep -c "sndbuf $BOOSTED_TB\$" "$BATS_TEST_TMPDIR/out"
  assert_output 2
}
