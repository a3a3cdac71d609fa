#!/usr/bin/env bats
# nbdinfo sees sbnbd-server's size, flags, block sizes and export list.
# bats file_tags=sanitize

load helpers

setup () { requires nbdinfo; }

@test "nbdinfo reports size, flags and block size of a memory export" {
  start_sbnbd_unix memory:3G
  run nbdinfo --json "$NBD_URI"
  assert_success
  echo "$output" > "$BATS_TEST_TMPDIR/info.json"
  run python3 - "$BATS_TEST_TMPDIR/info.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["exports"][0]
checks = {
    "export-size": 3 * 1024**3, "is_read_only": False, "can_flush": True,
    "can_fua": True, "can_trim": True, "can_zero": True,
    "can_fast_zero": True, "can_multi_conn": True, "can_cache": False,
    "block_size_minimum": 1, "block_size_preferred": 4096,
    "block_size_maximum": 32 * 1024**2,
}
bad = {k: (e.get(k), v) for k, v in checks.items() if e.get(k) != v}
print(bad or "all as expected")
sys.exit(1 if bad else 0)
PY
  assert_success
}

@test "nbdinfo --list shows the one export under its name" {
  start_sbnbd_unix -e disk1 pattern:1M
  run nbdinfo --list --json "$(nbd_unix_uri "$NBD_SOCK")"
  assert_success
  assert_output --partial '"export-name": "disk1"'
  assert_output --partial '"export-size": 1048576'
}

@test "nbdinfo sees a read-only export as read-only" {
  start_sbnbd_unix -r null:1M
  run nbdinfo "$NBD_URI"
  assert_success
  assert_output --partial "is_read_only: true"
  assert_output --partial "can_trim: false"
}

@test "nbdinfo sees the size of a file export" {
  truncate -s 12345 "$BATS_TEST_TMPDIR/disk.img"
  start_sbnbd_unix "$BATS_TEST_TMPDIR/disk.img"
  run nbdinfo --size "$NBD_URI"
  assert_success
  assert_output "12345"
}
