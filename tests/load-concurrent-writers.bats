#!/usr/bin/env bats
# 64 clients at once, each writing its own disjoint 1 MiB of one export
# (several requests in flight each), then the whole export is verified
# against the pattern: nothing lost, nothing misplaced.
# bats file_tags=sanitize

load helpers

CLIENTS=64
SLICE=1048576

# Start the 64 writers together, wait for all, fail if any failed.
write_slices_concurrently () {
  local i pids=() status=0
  for ((i = 0; i < CLIENTS; i++)); do
    timeout 120 "$SBNBD_CLIENT" -q --request-size 64K --queue-depth 4 \
      --offset $((i * SLICE)) --length $SLICE write pattern "$NBD_URI" \
      2> "$BATS_TEST_TMPDIR/w$i.err" 3>&- &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[i]}" || { echo "writer $i failed:"; cat "$BATS_TEST_TMPDIR/w$i.err"; status=1; }
  done
  return $status
}

@test "64 concurrent writers to a memory: export, then full verification" {
  start_sbnbd_unix memory:$((CLIENTS))M
  # Before: zeroes, so verify must fail (the check can fail).
  run "$SBNBD_CLIENT" -q verify "$NBD_URI"
  assert_failure
  write_slices_concurrently
  run "$SBNBD_CLIENT" -q verify "$NBD_URI"
  assert_success
}

@test "64 concurrent writers to a file export, then full verification of the file" {
  local img=$BATS_TEST_TMPDIR/disk.img
  truncate -s $((CLIENTS))M "$img"
  start_sbnbd_tcp "$img"
  write_slices_concurrently
  run "$SBNBD_CLIENT" -q verify "$NBD_URI"
  assert_success
  sbnbd_stop "$NBD_PID" || { echo "server exit status $?"; cat "$NBD_LOG"; false; }
  # The file itself, read without the server, is the pattern.
  start_sbnbd_unix pattern:$((CLIENTS))M
  run cmp "$img" <(nbdcopy "$NBD_URI" -)
  assert_success
}
