#!/usr/bin/env bats
# NBD_OPT_EXTENDED_HEADERS: 32-byte requests and replies (each reply
# echoing its request's offset, success as a NONE chunk, never a simple
# reply), 64-bit effect lengths, a WRITE's data with or without
# PAYLOAD_LEN, other payloads only where PAYLOAD_LEN says so (eaten and
# refused where a command takes none, a hang-up past the maximum); STRUCTURED_REPLY cannot undo it, EXPORT_NAME cannot follow it.
# The server goes on serving others throughout.
# bats file_tags=sanitize

load helpers

STATUS=$BATS_TEST_DIRNAME/nbd-status.py

setup () {
  requires nbdinfo python3
  start_sbnbd_unix -v null:8G
}

scenario () {
  run timeout 60 python3 "$STATUS" "$NBD_SOCK" "$1"
  [ "$status" -eq 0 ] || { echo "$output"; cat "$NBD_LOG"; false; }
  run nbdinfo --size "$NBD_URI"
  assert_success
  assert_output "$((8 << 30))"
}

@test "negotiation: bad data refused, structured replies after it refused, EXPORT_NAME drops" {
  scenario extended-negotiation
  grep -q 'NBD_OPT_EXPORT_NAME after extended headers' "$NBD_LOG"
}
@test "requests: 64-bit lengths, PAYLOAD_LEN rules, oversized payload hangs up" {
  scenario extended-requests
  grep -q 'payload of 1099511627776 bytes announced' "$NBD_LOG"
}
@test "the verbose log says which reply style a client got" {
  scenario block-status-null-extended
  grep -q 'transmission (extended headers, base:allocation selected)' "$NBD_LOG"
}
