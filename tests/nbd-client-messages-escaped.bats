#!/usr/bin/env bats
# Values from the command line or the network that go into sbnbd-client's
# messages are escaped (sb_escape): file names, URIs, export names and the
# server's own error messages give one line each, whatever they hold.
# bats file_tags=sanitize

bats_require_minimum_version 1.5.0
load helpers

@test "a file name with a line break: one line" {
  start_sbnbd_unix pattern:1M
  run cl_client read "$NBD_URI" $'/nonexistent/a\nsbnbd-client: forged'
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output 'sbnbd-client: open /nonexistent/a\nsbnbd-client: forged: No such file or directory'
}

@test "command-line arguments in usage errors are escaped" {
  run cl_client --request-size $'1\n2' read nbd://h/
  assert_failure 2
  assert_line -n 0 --partial 'sbnbd-client: --request-size 1\n2: not a size'
  assert_equal "${#lines[@]}" 2
  run cl_client $'fr\e[2Job' nbd://h/
  assert_line -n 0 --partial 'sbnbd-client: unknown command '\''fr\x1b[2Job'\'
  run cl_client $'--bo\ngus' read nbd://h/
  assert_line -n 0 "sbnbd-client: unknown or ambiguous option '--bo\\ngus'"
  run cl_client info $'nbd\e[2J://h/'
  assert_failure 2
  assert_line -n 0 --partial 'sbnbd-client: bad URI '\''nbd\x1b[2J://h/'\'': '
  assert_equal "${#lines[@]}" 2
}

@test "the server's error message: escaped, one line" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" error-controls
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --regexp '^sbnbd-client: read at offset 0 \([0-9]+ bytes\): server replied EIO \(input/output error\): disk\\non fire\\r\\x1b\[2J\\x00\\xff\\\\$'
}

@test "an export refused with a message, for a name with control characters" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" refuse-controls
  run cl_client info "nbd+unix:///a%0Ab%1B?socket=$BATS_TEST_TMPDIR/s"
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output --partial 'sbnbd-client: server refused export '\''a\nb\x1b'\'': no such export'
  assert_output --partial ': no\nsbnbd-client: forged\x1b[2J\x00'
}

@test "info prints an export name with a line break on its one line" {
  start_sbnbd_unix -e $'a\nb' pattern:1M
  run --separate-stderr cl_client info "nbd+unix:///a%0Ab?socket=$NBD_SOCK"
  assert_success
  assert_line -n 0 'export: a\nb'
  assert_line -n 1 'size: 1048576'
}
