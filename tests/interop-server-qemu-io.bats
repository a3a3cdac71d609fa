#!/usr/bin/env bats
# qemu-io writes, zeroes and discards patterns and reads them back.
# bats file_tags=sanitize

load helpers

setup () { requires qemu-io; }

# qemu-io exits 0 even when a -P check fails; it prints "Pattern
# verification failed", so the output is checked too.
qio () {
  run qemu-io -f raw "$@" "$NBD_URI"
  assert_success
  refute_output --partial "failed"
  refute_output --partial "error"
}

check_export () {
  qio -c "write -P 0xa5 0 1M" -c "write -P 0x5a 1M 1M" \
      -c "read -P 0xa5 0 1M" -c "read -P 0x5a 1M 1M" \
      -c "write -z 8K 12K" -c "read -P 0 8K 12K" -c "read -P 0xa5 0 8K" \
      -c "read -P 0xa5 20K 4K" \
      -c "discard 1M 512K" -c "read -P 0x5a 1536K 512K" \
      -c "write -P 0x33 -f 3M 64K" -c "flush" -c "read -P 0x33 3M 64K" \
      -c "write -P 0x77 4095K 1K" -c "read -P 0x77 4095K 1K"
  # A fresh connection sees the same data.
  qio -c "read -P 0xa5 0 8K" -c "read -P 0 8K 12K" -c "read -P 0x33 3M 64K"
}

@test "qemu-io patterns on a memory export" {
  start_sbnbd_unix memory:4M
  check_export
}

@test "qemu-io patterns on a file export" {
  truncate -s 4M "$BATS_TEST_TMPDIR/disk.img"
  start_sbnbd_unix "$BATS_TEST_TMPDIR/disk.img"
  check_export
  # Zeroed range reads as zero from the file, not only through the server.
  run cmp -n 12288 -i 8192:0 "$BATS_TEST_TMPDIR/disk.img" /dev/zero
  assert_success
}

@test "qemu-io sees a wrong pattern as a failure (the check can fail)" {
  start_sbnbd_unix pattern:1M
  run qemu-io -f raw -c "read -P 0 0 4K" "$NBD_URI"
  assert_output --partial "Pattern verification failed"
}
