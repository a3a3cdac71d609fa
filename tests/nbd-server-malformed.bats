#!/usr/bin/env bats
# Malformed, hostile or cut-off traffic gets the protocol's answer or a
# disconnect of that client alone; the server goes on serving others.
# bats file_tags=sanitize

load helpers

RAW=$BATS_TEST_DIRNAME/nbd-raw.py

setup () {
  requires nbdinfo python3
  start_sbnbd_unix -v memory:64M
}

# Run a scenario, then show that the server is alive and serving.
scenario () {
  run timeout 60 python3 "$RAW" "$NBD_SOCK" "$1"
  [ "$status" -eq 0 ] || { echo "$output"; cat "$NBD_LOG"; false; }
  run nbdinfo --size "$NBD_URI"
  assert_success
  assert_output "$((64 << 20))"
  sbnbd_alive "$NBD_PID"
}

@test "garbage after the greeting: disconnected" { scenario garbage-after-greeting; }
@test "unknown client flags: disconnected" { scenario unknown-client-flags; }
@test "bad option magic: disconnected" { scenario bad-option-magic; }
@test "STARTTLS and unknown options: NBD_REP_ERR_UNSUP, haggling goes on" {
  scenario unsupported-options
}
@test "malformed INFO/GO/LIST/STRUCTURED_REPLY: NBD_REP_ERR_INVALID, unknown name: ERR_UNKNOWN" {
  scenario malformed-info
}
@test "option over 4096 bytes: drained and refused with ERR_TOO_BIG" { scenario option-too-long; }
@test "4 GiB EXPORT_NAME: disconnected at once" { scenario export-name-too-long; }
@test "client gone mid-option" { scenario disconnect-mid-option; }
@test "bad requests, simple replies: EINVAL/ENOSPC, stream stays in step" {
  scenario bad-requests-simple
}
@test "bad requests, structured replies: ERROR chunks, stream stays in step" {
  scenario bad-requests-structured
}
@test "write at the end with FUA reads back; pipelined reads answered in order" {
  scenario write-read-back
}
@test "bad request magic: disconnected" { scenario bad-request-magic; }
@test "client gone mid-header" { scenario disconnect-mid-header; }
@test "client gone mid-payload" { scenario disconnect-mid-payload; }
@test "client gone while 256 MiB of replies are queued" { scenario disconnect-mid-reply; }
@test "read-only export: write, trim, zero get EPERM" {
  start_sbnbd_unix -r memory:64M
  scenario read-only-writes
}
@test "the scenarios can fail: a read-only export fails write-read-back" {
  start_sbnbd_unix -r memory:64M
  run timeout 60 python3 "$RAW" "$NBD_SOCK" write-read-back
  assert_failure
  assert_output --partial "error 1"
}
