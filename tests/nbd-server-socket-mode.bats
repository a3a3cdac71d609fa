#!/usr/bin/env bats
# The unix socket is 0600 unless --socket-mode says otherwise.
# bats file_tags=sanitize

load helpers

@test "unix socket is mode 0600 by default, whatever the umask" {
  umask 000
  start_sbnbd_unix null:1M
  run stat -c %a "$NBD_SOCK"
  assert_output 600
}

@test "--socket-mode 0660 widens it" {
  start_sbnbd_unix --socket-mode 0660 null:1M
  run stat -c %a "$NBD_SOCK"
  assert_output 660
}
