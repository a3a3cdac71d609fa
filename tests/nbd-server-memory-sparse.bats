#!/usr/bin/env bats
# memory:SIZE is sparse: a huge export costs nothing until written, a
# write costs about its own size, and trimming gives the pages back.
# bats file_tags=sanitize

load helpers

rss_kib () { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

@test "memory:1T starts small, grows by what is written, shrinks on trim" {
  requires qemu-io
  [ -z "${SB_VALGRIND:-}" ] || skip "valgrind cannot map a 1 TiB export"
  start_sbnbd_unix memory:1T
  local before after trimmed
  before=$(rss_kib "$NBD_PID")
  run qemu-io -f raw -c "write -P 0x5a 512G 64M" "$NBD_URI"
  assert_success
  after=$(rss_kib "$NBD_PID")
  echo "rss before $before KiB, after a 64 MiB write $after KiB"
  # Grew by at least most of the 64 MiB written, and not absurdly more.
  [ $((after - before)) -ge $((48 * 1024)) ]
  [ $((after - before)) -le $((200 * 1024)) ]
  run qemu-io -f raw -c "discard 512G 64M" -c "read -P 0 512G 64M" "$NBD_URI"
  assert_success
  refute_output --partial "failed"
  trimmed=$(rss_kib "$NBD_PID")
  echo "after trim $trimmed KiB"
  [ $((after - trimmed)) -ge $((48 * 1024)) ]
}
