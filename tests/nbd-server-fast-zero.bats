#!/usr/bin/env bats
# FAST_ZERO is answered honestly on a file export: where zeroing would mean
# writing zeroes (tmpfs cannot FALLOC_FL_ZERO_RANGE), a NO_HOLE fast zero
# gets ENOTSUP and changes nothing; a slow one or one that may punch works.
# bats file_tags=sanitize

load helpers

@test "file on tmpfs: FAST_ZERO|NO_HOLE -> ENOTSUP, others zero the range" {
  requires python3 fallocate
  [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] ||
    skip "no tmpfs at /dev/shm on this machine"
  local img
  img=$(mktemp /dev/shm/sbnbd-fast-zero.XXXXXX)
  cleanup_push "rm -f $img"
  truncate -s 1M "$img"
  if fallocate -z -o 0 -l 4096 "$img" 2>/dev/null; then
    skip "this kernel's tmpfs zeroes ranges itself, so every zero is fast"
  fi
  start_sbnbd_unix "$img"
  run timeout 60 python3 "$BATS_TEST_DIRNAME/nbd-raw.py" "$NBD_SOCK" \
    fast-zero-without-zero-range
  assert_success
}

@test "memory export: FAST_ZERO|NO_HOLE succeeds (zeroing memory is fast)" {
  start_sbnbd_unix memory:1M
  run timeout 60 python3 "$BATS_TEST_DIRNAME/nbd-raw.py" "$NBD_SOCK" \
    fast-zero-without-zero-range
  assert_failure
  assert_output --partial "zero flags 0x12: error 0, want 95"
}
