#!/usr/bin/env bats
# -e NAME: the right name (or the empty default) connects, any other does not.
# bats file_tags=sanitize

load helpers

setup () {
  requires nbdinfo qemu-io
  start_sbnbd_unix -e disk0 pattern:1M
}

@test "the export's own name connects" {
  run nbdinfo --size "$(nbd_unix_uri "$NBD_SOCK" disk0)"
  assert_success
  assert_output 1048576
  [ "$NBD_URI" = "$(nbd_unix_uri "$NBD_SOCK" disk0)" ]
}

@test "the empty name means the default export and connects" {
  run nbdinfo --size "$(nbd_unix_uri "$NBD_SOCK")"
  assert_success
  assert_output 1048576
}

@test "another name is refused (NBD_OPT_GO: ERR_UNKNOWN)" {
  run nbdinfo --size "$(nbd_unix_uri "$NBD_SOCK" disk1)"
  assert_failure
  run nbdinfo --size "$(nbd_unix_uri "$NBD_SOCK" disk00)"
  assert_failure
  run qemu-io -f raw -c "read 0 512" "$(nbd_unix_uri "$NBD_SOCK" disk)"
  refute_output --partial "read 512/512"
}
