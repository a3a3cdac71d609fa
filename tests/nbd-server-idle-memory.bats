#!/usr/bin/env bats
# A connection gives its payload buffer (up to 32 MiB) back once it has
# been idle a second, so idle clients cost the server little memory:
# eight clients that each read 32 MiB and then sit idle leave it under
# 64 MiB of RSS (each kept its buffer for good before: 264 MB).
# bats file_tags=sanitize

load helpers

# Resident memory of PID in KiB, as /proc says.
rss_kib () {
  awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

peak_rss_kib () {
  awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"
}

@test "8 idle clients that each read 32 MiB: server RSS under 64 MiB" {
  local image=$BATS_TEST_TMPDIR/disk.img
  local ready=$BATS_TEST_TMPDIR/ready release=$BATS_TEST_TMPDIR/release
  # Data everywhere: every read goes through the connection's buffer.
  head -c 32M /dev/urandom > "$image"
  start_sbnbd_unix "$image"
  local alone
  alone=$(rss_kib "$NBD_PID")
  "$SB_TESTS_DIR/server-abuse.py" hold "$NBD_SOCK" 8 read=33554432 \
    "$ready" "$release" > "$BATS_TEST_TMPDIR/held" 3>&- &
  local holder=$!
  cleanup_push "touch '$release'; wait $holder"
  wait_for_file "$ready" 60
  # The reads did fill buffers: the peak holds at least one of them.
  [ "$(peak_rss_kib "$NBD_PID")" -gt $((32 * 1024)) ]
  # Under valgrind, whose own memory counts in the server's RSS: less
  # than one buffer more than the server alone.
  local limit=$((64 * 1024)) deadline=$((SECONDS + 15)) rss
  [ -z "${SB_VALGRIND:-}" ] || limit=$((alone + 32 * 1024))
  until rss=$(rss_kib "$NBD_PID"); [ "$rss" -lt "$limit" ]; do
    [ $SECONDS -lt $deadline ] ||
      fail "server RSS still $rss KiB with 8 idle clients ($alone KiB alone)"
    sleep 0.1
  done
  touch "$release"
  wait "$holder"
  # Idle, not closed: the clients were still connected throughout.
  assert_equal "$(cat "$BATS_TEST_TMPDIR/held")" "closed:"
}
