#!/usr/bin/env bats
# sbnbd-client write puts exactly its data on a qemu-nbd export: a file,
# the pattern and zeroes, each checked by reading the backing file or by
# another tool.
# bats file_tags=sanitize

load helpers

setup () {
  requires qemu-nbd qemu-img cmp
  DISK=$BATS_TEST_TMPDIR/disk
  cl_random_file "$DISK" 20M
  URI=$(cl_unix_uri "$BATS_TEST_TMPDIR/s")
}

@test "write FILE with --flush leaves the file's bytes on the export" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 20M
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK"
  run cl_client --flush write "$BATS_TEST_TMPDIR/src" "$URI"
  assert_success
  cmp "$BATS_TEST_TMPDIR/src" "$DISK"
}

@test "write FILE smaller than the export changes only its own range" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 3000000
  cp "$DISK" "$BATS_TEST_TMPDIR/expected"
  dd if="$BATS_TEST_TMPDIR/src" of="$BATS_TEST_TMPDIR/expected" bs=1M seek=4 \
    conv=notrunc status=none
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK"
  run cl_client --offset 4M --request-size 64K write "$BATS_TEST_TMPDIR/src" "$URI"
  assert_success
  cmp "$BATS_TEST_TMPDIR/expected" "$DISK"
}

@test "write pattern reads back through qemu-img as the pattern" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK"
  run cl_client write pattern "$URI"
  assert_success
  qemu-img convert -f raw -O raw "$URI" "$BATS_TEST_TMPDIR/copy"
  run python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
expected = bytes(1 + i % 251 for i in range(251)) * (len(data) // 251 + 1)
sys.exit(0 if data == expected[:len(data)] and len(data) == 20 << 20 else 1)' \
    "$BATS_TEST_TMPDIR/copy"
  assert_success
  run cl_client verify "$URI"
  assert_success
}

@test "write zero leaves zeroes" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK"
  run cl_client write zero "$URI"
  assert_success
  cmp "$DISK" <(head -c 20M /dev/zero)
}

@test "a FILE larger than the export is refused before anything is sent" {
  cl_random_file "$BATS_TEST_TMPDIR/src" 21M
  cp "$DISK" "$BATS_TEST_TMPDIR/before"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK"
  run "$SBNBD_CLIENT" write "$BATS_TEST_TMPDIR/src" "$URI"
  assert_failure 1
  assert_output --partial "beyond the end of the export"
  cmp "$BATS_TEST_TMPDIR/before" "$DISK"
}

@test "writing to a read-only export fails with a clear message" {
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$DISK" -r
  run "$SBNBD_CLIENT" write pattern "$URI"
  assert_failure 1
  assert_output "sbnbd-client: the export is read-only"
}
