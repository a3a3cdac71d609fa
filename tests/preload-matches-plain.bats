#!/usr/bin/env bats
# A program can tell the library is there only by what it declares
# (tests/difftest/design.c: the send buffer, TCP_NODELAY, a header held
# for its payload).  The differential tester runs seeded sequences of
# every hooked call (sends of each kind, NBD-shaped traffic in pieces,
# bad buffers, sendfile and splice, receives, dup, close, raw closes and
# reused numbers, fork, vfork + exec, threads) plainly and preloaded,
# and compares each call's result, errno, SIGPIPEs, the bytes that
# arrived, the open descriptors and stalls.  make check-diff-long runs
# many more seeds.

load helpers

DIFFTEST=$SB_BUILD/tests/difftest/difftest

@test "300 seeded sequences: every call as it is without the library" {
  run "$DIFFTEST" --seeds 1-300 --library "$(preload_value)"
  echo "$output" | tail -3 >&3
  assert_success
  assert_line --regexp '^difftest: 300 seeds, 250 calls each at most: 0 differ$'
}

@test "100 more with scope nbd, where unix sockets are followed too" {
  run "$DIFFTEST" --seeds 301-400 --library "$(preload_value)" \
    --env SOCKBOOST_SCOPE=nbd
  assert_success
  assert_line --regexp '^difftest: 100 seeds, 250 calls each at most: 0 differ$'
}

@test "a difference fails its seed and prints the line that replays it" {
  # A log file is a descriptor the library opens, which the tester sees
  # (at 900, where it stays out of the program's way): nothing else.
  local log="$BATS_TEST_TMPDIR/log-%p" replay
  run "$DIFFTEST" --seeds 1-2 --library "$(preload_value)" \
    --env SOCKBOOST_DEBUG=2 --env "SOCKBOOST_LOG_FILE=$log"
  assert_failure 1
  assert_line --regexp '^difftest: seed 1 differs at line [0-9]+:$'
  assert_line --regexp '^  library +[0-9]+ fds .* 900:.*/log-[0-9]+$'
  assert_line --regexp '^difftest: 2 seeds, 250 calls each at most: 2 differ$'
  replay=$(sed -n 's/^  replay: *//p' <<< "$output" | head -1)
  [ -n "$replay" ]
  run bash -c "$replay"
  assert_failure 1
  assert_line --regexp '^difftest: seed 1 differs at line [0-9]+:$'
  # The whole traces (--verbose): the fds lines are all that differ.
  run diff <(sed -n '/^--- plain$/,/^--- library$/p' <<< "$output" | sed '1d;$d') \
    <(sed -n '/^--- library$/,/^---$/p' <<< "$output" | sed '1d;$d')
  assert_failure
  refute_output --regexp '^[<>] [0-9]+ [^f]'
  assert_output --regexp '900:'
}
