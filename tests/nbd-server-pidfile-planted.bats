#!/usr/bin/env bats
# --pidfile in a sticky directory others can write to: what another user
# planted beside the pidfile (PIDFILE.tmp as a link to a file of root's,
# or as a file of their own) is left untouched, and the pidfile is a
# regular file of the server's user holding its pid.
# bats file_tags=sanitize

load helpers

setup () {
  SHARED=$BATS_TEST_TMPDIR/shared
  mkdir "$SHARED"
  chmod 1777 "$SHARED"
  PIDFILE=$SHARED/sbnbd.pid
  VICTIM=$BATS_TEST_TMPDIR/victim
  echo "root's own data" > "$VICTIM"
}

# Start the server with --pidfile $PIDFILE; bounded wait for the pidfile.
start_with_pidfile () {
  "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/sock" --pidfile "$PIDFILE" \
    null:1M 2> "$BATS_TEST_TMPDIR/log" 3>&- &
  SERVER_PID=$!
  cleanup_push "sbnbd_stop $SERVER_PID"
  check_at_teardown "sbnbd_check_log $BATS_TEST_TMPDIR/log"
  wait_for_file "$PIDFILE" || { cat "$BATS_TEST_TMPDIR/log"; false; }
}

# The pidfile is a regular file of the server's user (root) with its pid.
assert_pidfile_ours () {
  [ -f "$PIDFILE" ] && [ ! -L "$PIDFILE" ]
  assert_equal "$(stat -c %u "$PIDFILE")" "$(id -u)"
  assert_equal "$(cat "$PIDFILE")" "$SERVER_PID"
}

@test "a planted PIDFILE.tmp link to root's file: neither touched" {
  ln -s "$VICTIM" "$PIDFILE.tmp"
  chown -h nobody:nogroup "$PIDFILE.tmp"
  start_with_pidfile
  assert_pidfile_ours
  [ -L "$PIDFILE.tmp" ]
  assert_equal "$(readlink "$PIDFILE.tmp")" "$VICTIM"
  assert_equal "$(cat "$VICTIM")" "root's own data"
}

@test "a planted PIDFILE.tmp of another user: not used, not changed" {
  echo "nobody's file" > "$PIDFILE.tmp"
  chown nobody:nogroup "$PIDFILE.tmp"
  start_with_pidfile
  assert_pidfile_ours
  assert_equal "$(cat "$PIDFILE.tmp")" "nobody's file"
  assert_equal "$(stat -c %U "$PIDFILE.tmp")" nobody
  # Nothing else is left in the directory: the temporary file was renamed.
  run ls -A "$SHARED"
  assert_output "$(printf '%s\n' sbnbd.pid sbnbd.pid.tmp)"
}

@test "a pidfile replaced while the server runs is not removed at exit" {
  start_with_pidfile
  echo "someone else's" > "$PIDFILE.new"
  mv "$PIDFILE.new" "$PIDFILE"
  local status=0
  sbnbd_stop "$SERVER_PID" || status=$?
  assert_equal "$status" 0
  assert_equal "$(cat "$PIDFILE")" "someone else's"
}

@test "a pidfile that cannot be written: the server says why and exits 1" {
  run "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/sock" \
    --pidfile "$BATS_TEST_TMPDIR/no/such/dir/pid" null:1M
  assert_failure 1
  assert_output "sbnbd-server: pidfile $BATS_TEST_TMPDIR/no/such/dir/pid: creating a temporary file beside it: No such file or directory"
  [ ! -e "$BATS_TEST_TMPDIR/sock" ]
}
