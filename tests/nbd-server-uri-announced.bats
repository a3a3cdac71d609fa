#!/usr/bin/env bats
# With a private socket (-U -) or a kernel-chosen port (-p 0) and neither
# --run nor --print-uri, nobody could learn the address: the server says
# it on stderr.  Where the address is known or asked for, stderr stays
# quiet.
# bats file_tags=sanitize

bats_require_minimum_version 1.5.0
load helpers

# Start the server with ARGS in the background, stderr to $log, and wait
# (bounded) for its first line.
start_quiet_server () {
  log=$BATS_TEST_TMPDIR/server.log
  "$SBNBD_SERVER" "$@" 2> "$log" 3>&- &
  cleanup_push "sbnbd_stop $!"
  wait_for_file "$log"
}

uri_from_log () {
  sed -n 's/^sbnbd-server: serving pattern:1M on //p' "$log"
}

@test "-U - prints the private socket's URI on stderr" {
  start_quiet_server -U - pattern:1M
  assert_equal "$(wc -l < "$log")" 1
  uri=$(uri_from_log)
  assert_regex "$uri" '^nbd\+unix:///\?socket=/.*/nbd\.sock$'
  run "$SBNBD_CLIENT" -q verify "$uri"
  assert_success
}

@test "-p 0 prints the kernel-chosen port's URI on stderr" {
  start_quiet_server -p 0 -e disk pattern:1M
  assert_equal "$(wc -l < "$log")" 1
  uri=$(uri_from_log)
  assert_regex "$uri" '^nbd://127\.0\.0\.1:[1-9][0-9]*/disk$'
  run "$SBNBD_CLIENT" -q verify "$uri"
  assert_success
}

@test "nothing on stderr when the URI is asked for or known" {
  local sock=$BATS_TEST_TMPDIR/known.sock
  run --separate-stderr "$SBNBD_SERVER" -U - --run 'echo "$uri"' pattern:1M
  assert_success
  assert_equal "$stderr" ""
  assert_output --regexp '^nbd\+unix:///\?socket='
  start_sbnbd_tcp pattern:1M           # -p 0 --print-uri
  [ ! -s "$NBD_LOG" ]
  start_sbnbd_unix pattern:1M          # a socket path of our choosing
  [ ! -s "$NBD_LOG" ]
}
