#!/usr/bin/env bats
# info reports size, decoded flags, block sizes and structured replies as
# the server negotiated them, in text and as JSON.
# bats file_tags=sanitize

load helpers

@test "qemu-nbd read-write export" {
  requires qemu-nbd
  truncate -s 3M "$BATS_TEST_TMPDIR/disk"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/disk" -x mydisk
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" mydisk)"
  assert_success
  assert_line "export: mydisk"
  assert_line "size: 3145728"
  assert_line --regexp "^flags: 0x[0-9a-f]{4} has_flags send_flush send_fua .*send_trim"
  refute_line --regexp "^flags: .*read_only"
  assert_line "structured replies: yes"
  assert_line "negotiation: NBD_OPT_GO"
  assert_line --regexp "^block size: minimum [0-9]+ preferred [0-9]+ maximum [0-9]+$"
}

@test "nbdkit read-only multi-conn export as JSON" {
  requires nbdkit
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" -r pattern 5M
  run cl_client info --json "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_success
  python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["size"] == 5 << 20, o
assert "read_only" in o["flag_names"] and "can_multi_conn" in o["flag_names"], o
assert o["flags"] & 2 and o["structured_replies"] is True and o["negotiation"] == "go", o
' "$output"
}

@test "nbd-server: no structured replies" {
  requires nbd-server
  truncate -s 1M "$BATS_TEST_TMPDIR/disk"
  cl_start_nbd_server "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/disk" d "readonly = true"
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" d)"
  assert_success
  assert_line "size: 1048576"
  assert_line --regexp "^flags: .*read_only"
  assert_line "structured replies: no"
}

@test "info --json: an export name that is not UTF-8 still gives valid JSON" {
  # %C3%A9 is UTF-8 for e-acute and stays; %FF and the lone %C3 cannot
  # be UTF-8 and become U+FFFD; %0A is escaped.
  start_sbnbd_unix -e "$(printf 'd\xc3\xa9\xff\n\xc3x')" memory:1M
  run cl_client info --json "nbd+unix:///d%C3%A9%FF%0A%C3x?socket=$NBD_SOCK"
  assert_success
  python3 -c '
import json, sys
o = json.loads(sys.argv[1].encode("utf-8", "surrogateescape").decode("utf-8"))
assert o["export"] == "d\u00e9\ufffd\n\ufffdx", repr(o["export"])
' "$output"
}
