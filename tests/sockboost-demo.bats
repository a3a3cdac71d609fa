#!/usr/bin/env bats
# tools/demo (make demo): a TCP part (qemu-nbd, or the naive sbnbd-server)
# and a unix part whose send buffers are read from outside (ss, through
# tools/sockboostlib) on a connection each server accepted, beside the raw
# socketpair ceiling; every result with its spread and a verdict taken
# round by round.  Only the shape is checked, never a time or a ratio.
load helpers

# Result line: mode, optional label, median, min-max, ratio.
FIGURE='[0-9]+\.[0-9]+'
RANGE="$FIGURE-$FIGURE"
RATIO='[0-9]+(\.[0-9]{2})?'
VERDICT='^  (boosted against plain|2 MiB against the default), round by round: ((faster|slower) in every round|no clear difference: faster in [0-9]+ of [0-9]+ rounds \(on an idle machine, or with more --rounds\)|too few rounds to judge \([12]; 3 or more tell a difference from noise\))$'

setup () {
  [ -x "$SBNBD_SERVER" ] && [ -x "$SBNBD_CLIENT" ] || fail "sbnbd-server/client not built"
}

@test "the unix part: both modes with their send buffers, spread, ceiling" {
  requires ss
  run "$SB_ROOT/tools/demo" --tcp off --size 256M --rounds 3
  assert_success
  assert_line --regexp '^mode +send buffer \(tb\) +GiB/s +min-max +ratio$'
  assert_line --regexp "^plain +$DEFAULT_TB +$FIGURE +$RANGE +1\.00$"
  assert_line --regexp "^boosted +$BOOSTED_TB +$FIGURE +$RANGE +$RATIO$"
  assert_line --regexp "^ceiling +socketpair default +$FIGURE +$RANGE +1\.00$"
  assert_line --regexp "^ceiling +socketpair 2 MiB +$FIGURE +$RANGE +$RATIO$"
  # One verdict for the NBD pair, one for the ceiling.
  [ "$(grep -cE "$VERDICT" <<<"$output")" -eq 2 ] || fail "wanted 2 verdicts"
  refute_output --partial TCP
}

@test "one round is reported as too few to judge the spread" {
  run "$SB_ROOT/tools/demo" --tcp off --size 64M --rounds 1
  assert_success
  assert_line '  boosted against plain, round by round: too few rounds to judge (1; 3 or more tell a difference from noise)'
}

@test "the TCP part with qemu-nbd: a sparse image copied plain and boosted" {
  requires qemu-nbd qemu-img ss
  run "$SB_ROOT/tools/demo" --tcp qemu-nbd --size 64M --rounds 1
  assert_success
  # The TCP effect comes first.
  assert_line --index 0 --regexp '^TCP: qemu-img convert copies a sparse image of [0-9]+ MiB'
  assert_line --regexp '^from qemu-nbd [0-9.]+ over 127\.0\.0\.1'
  assert_line --regexp '^mode +ms +min-max +ratio$'
  assert_line --regexp "^plain +$FIGURE +$RANGE +1\.00$"
  assert_line --regexp "^boosted +$FIGURE +$RANGE +$RATIO$"
  # TCP, the NBD pair over unix, the ceiling.
  [ "$(grep -cE "$VERDICT" <<<"$output")" -eq 3 ] || fail "wanted 3 verdicts"
}

@test "the TCP part without qemu-nbd: the naive sbnbd-server" {
  run "$SB_ROOT/tools/demo" --tcp sbnbd --size 64M --rounds 1
  assert_success
  assert_line --index 0 --regexp '^TCP: sbnbd-client reads [0-9]+ blocks of 4 KiB one at a time'
  assert_line --regexp "^plain +$FIGURE +$RANGE +1\.00$"
  assert_line --regexp "^boosted +$FIGURE +$RANGE +$RATIO$"
}

@test "the demo leaves no server or socket behind" {
  TMPDIR=$BATS_TEST_TMPDIR run "$SB_ROOT/tools/demo" --tcp sbnbd --size 64M --rounds 1
  assert_success
  run ls "$BATS_TEST_TMPDIR"
  assert_output ""
  run pgrep -f "sbnbd-server .*$BATS_TEST_TMPDIR/"
  assert_failure
}

@test "a missing piece is a clear error" {
  SB_BUILD=$BATS_TEST_TMPDIR run "$SB_ROOT/tools/demo" --rounds 1
  assert_failure 1
  assert_output "demo: $BATS_TEST_TMPDIR/nbd/sbnbd-server is not built (run make)"
}

@test "bad arguments are usage errors" {
  run "$SB_ROOT/tools/demo" --rounds 0
  assert_failure 2
  assert_line "Try 'tools/demo --help' for more information."
  run "$SB_ROOT/tools/demo" --bogus
  assert_failure 2
  run "$SB_ROOT/tools/demo" --tcp udp
  assert_failure 2
}
