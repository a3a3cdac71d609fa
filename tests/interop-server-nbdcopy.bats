#!/usr/bin/env bats
# nbdcopy moves data both ways through sbnbd-server over 4 connections.
# bats file_tags=sanitize

load helpers

setup () {
  requires nbdcopy cmp
  SRC=$BATS_TEST_TMPDIR/src.img
  head -c 24M /dev/urandom > "$SRC"
}

@test "nbdcopy to and from a memory export, 4 connections, data intact" {
  start_sbnbd_unix memory:24M
  # 1 MiB requests where nbdcopy can be asked (libnbd 1.8 and later).
  local request_size=()
  libnbd_at_least 1.8 && request_size=(--request-size 1048576)
  run nbdcopy --connections 4 "${request_size[@]}" "$SRC" "$NBD_URI"
  assert_success
  run nbdcopy --connections 4 "$NBD_URI" "$BATS_TEST_TMPDIR/back.img"
  assert_success
  cmp "$SRC" "$BATS_TEST_TMPDIR/back.img"
}

@test "nbdcopy to and from a file export over TCP, 4 connections" {
  truncate -s 24M "$BATS_TEST_TMPDIR/disk.img"
  start_sbnbd_tcp "$BATS_TEST_TMPDIR/disk.img"
  run nbdcopy --connections 4 --flush "$SRC" "$NBD_URI"
  assert_success
  # The file itself holds the data, not just what the server answers.
  cmp "$SRC" "$BATS_TEST_TMPDIR/disk.img"
  run nbdcopy --connections 4 "$NBD_URI" "$BATS_TEST_TMPDIR/back.img"
  assert_success
  cmp "$SRC" "$BATS_TEST_TMPDIR/back.img"
}

@test "nbdcopy reads the pattern export as the pattern function" {
  start_sbnbd_unix pattern:5M
  run nbdcopy --connections 4 "$NBD_URI" "$BATS_TEST_TMPDIR/p.img"
  assert_success
  python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
want = bytes(1 + i % 251 for i in range(len(d)))
sys.exit(0 if len(d) == 5 << 20 and d == want else 1)' "$BATS_TEST_TMPDIR/p.img"
}
