#!/usr/bin/env bats
# sbnbd-client map lists the extents nbdinfo --map lists, from sbnbd-server
# (extended headers or not) and from qemu-nbd; --json is the same list;
# a server without base:allocation is an error.  (nbdinfo before libnbd
# 1.8.1 says "allocated" where sbnbd-client says "data": nbdinfo_map_words.)
# bats file_tags=sanitize

load helpers

setup () {
  requires nbdinfo qemu-nbd python3
  DISK=$BATS_TEST_TMPDIR/disk
  truncate -s 100M "$DISK"
  for at in 5 40000 65536 98304; do
    head -c 192K /dev/urandom | dd of="$DISK" bs=1K seek=$at conv=notrunc status=none
  done
}

@test "map through sbnbd-server: nbdinfo --map's extents, with and without extended headers" {
  start_sbnbd_unix -r "$DISK"
  nbdinfo --map "$NBD_URI" | nbdinfo_map_words > "$BATS_TEST_TMPDIR/want"
  run cl_client map "$NBD_URI"
  assert_success
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
  assert_equal "$(echo "$output" | wc -l)" 9
  run cl_client --no-extended map "$NBD_URI"
  assert_success
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
}

@test "map through qemu-nbd: the same extents" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/q" "$DISK" -r
  nbdinfo --map "$(cl_unix_uri "$BATS_TEST_TMPDIR/q")" | nbdinfo_map_words > "$BATS_TEST_TMPDIR/want"
  run cl_client map "$(cl_unix_uri "$BATS_TEST_TMPDIR/q")"
  assert_success
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
}

@test "map --json: the list nbdinfo --map --json gives" {
  start_sbnbd_unix -r "$DISK"
  nbdinfo --map --json "$NBD_URI" | nbdinfo_map_words > "$BATS_TEST_TMPDIR/want"
  cl_client map --json "$NBD_URI" > "$BATS_TEST_TMPDIR/got"
  run python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print(len(a), "extents", "same" if a == b else "differ")' \
    "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
  assert_output "9 extents same"
}

@test "map of memory:, null: and pattern:, and of a range" {
  start_sbnbd_unix null:3G
  run cl_client map "$NBD_URI"
  assert_output "         0  3221225472    3  hole,zero"
  start_sbnbd_unix pattern:1M
  run cl_client map --offset 4096 --length 8192 "$NBD_URI"
  assert_output "      4096        8192    0  data"
  start_sbnbd_unix memory:1M
  head -c 4096 /dev/urandom > "$BATS_TEST_TMPDIR/block"
  cl_client -q --offset 8192 write "$BATS_TEST_TMPDIR/block" "$NBD_URI"
  run cl_client map "$NBD_URI"
  assert_output "         0        8192    3  hole,zero
      8192        4096    0  data
     12288     1036288    3  hole,zero"
}

@test "map without structured replies: no base:allocation, an error" {
  start_sbnbd_unix -r "$DISK"
  run cl_client --no-structured map "$NBD_URI"
  assert_failure 1
  assert_output "sbnbd-client: the server does not offer the base:allocation metadata context"
}
