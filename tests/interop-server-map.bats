#!/usr/bin/env bats
# For one sparse file, the extents nbdinfo --map and qemu-img map see
# through sbnbd-server are exactly the ones they see through qemu-nbd
# (before QEMU 6.0, which reports the file's holes as zeroes alone,
# exactly but for that: as_qemu_nbd_reports).
# bats file_tags=sanitize

load helpers

setup () {
  requires nbdinfo qemu-nbd qemu-img
  DISK=$BATS_TEST_TMPDIR/disk
  # A hole first, data, a long hole, one 4 KiB block, a hole, data, a
  # hole, data to the end of the 100 MiB: 8 extents.
  truncate -s 100M "$DISK"
  put 320K 192K
  put 40000K 4K
  put 64M 3M
  put 96M 4M
  start_sbnbd_unix -r "$DISK"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/q.sock" "$DISK" -r
  QEMU_URI=$(cl_unix_uri "$BATS_TEST_TMPDIR/q.sock")
}

# Random data of SIZE at OFFSET (both with a K or M suffix) in DISK.
put () {
  local unit=${1: -1}
  head -c "$2" /dev/urandom | dd of="$DISK" bs=1"$unit" seek="${1%?}" \
    conv=notrunc status=none
}

@test "nbdinfo --map: same extents as through qemu-nbd" {
  nbdinfo --map "$QEMU_URI" > "$BATS_TEST_TMPDIR/qemu"
  run nbdinfo --map "$NBD_URI"
  assert_success
  # Not vacuous: holes and data both there.
  assert_line --partial "hole,zero"
  assert_line --regexp ' (data|allocated)$'
  assert_equal "$(echo "$output" | wc -l)" 8
  run as_qemu_nbd_reports <<<"$output"
  assert_output "$(cat "$BATS_TEST_TMPDIR/qemu")"
}

@test "nbdinfo --map --json: same as through qemu-nbd" {
  nbdinfo --map --json "$QEMU_URI" > "$BATS_TEST_TMPDIR/qemu"
  run nbdinfo --map --json "$NBD_URI"
  assert_success
  run as_qemu_nbd_reports <<<"$output"
  assert_output "$(cat "$BATS_TEST_TMPDIR/qemu")"
}

@test "qemu-img map --output=json: same as through qemu-nbd" {
  qemu-img map --output=json -f raw "$QEMU_URI" > "$BATS_TEST_TMPDIR/qemu"
  run qemu-img map --output=json -f raw "$NBD_URI"
  assert_success
  assert_output --partial '"data": true'
  assert_output --partial '"zero": true'
  run as_qemu_nbd_reports <<<"$output"
  assert_output "$(cat "$BATS_TEST_TMPDIR/qemu")"
}
