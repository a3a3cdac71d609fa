#!/usr/bin/env bats
# --max-connections N: the N+1th client is closed at once, before the
# greeting; the others are unaffected and a freed slot serves again.
# bats file_tags=sanitize

load helpers

# Open a connection, read the greeting, print "greeting", and hold it
# open until FILE appears.
hold_connection () {
  python3 -c 'import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
assert s.recv(18)[:8] == b"NBDMAGIC"
print("greeting", flush=True)
while not os.path.exists(sys.argv[2]): time.sleep(0.02)' "$NBD_SOCK" "$1"
}

@test "--max-connections 2: a third client is refused, others keep working" {
  requires nbdinfo
  start_sbnbd_unix -v --max-connections 2 null:1M
  local release=$BATS_TEST_TMPDIR/release
  cleanup_push "touch $release"
  hold_connection "$release" > "$BATS_TEST_TMPDIR/c1" 2>"$BATS_TEST_TMPDIR/e1" 3>&- &
  local h1=$!
  hold_connection "$release" > "$BATS_TEST_TMPDIR/c2" 3>&- &
  local h2=$!
  wait_for_file "$BATS_TEST_TMPDIR/c1" || { cat "$BATS_TEST_TMPDIR/e1" "$NBD_LOG"; false; }
  wait_for_file "$BATS_TEST_TMPDIR/c2"
  run timeout 10 nbdinfo --size "$NBD_URI"
  assert_failure
  run grep -c "refused: 2 connections open" "$NBD_LOG"
  assert_output 1
  touch "$release"
  wait "$h1" "$h2"
  # The slots free up as the holders leave (bounded wait for the server
  # to notice).
  local deadline=$((SECONDS + 10))
  until timeout 10 nbdinfo --size "$NBD_URI" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "slots never freed"
    sleep 0.05
  done
}
