#!/usr/bin/env bats
# A client killed mid-transfer costs the server nothing: it keeps serving
# the others and gives back every descriptor and thread of that client.
# (Memory: the sanitized and valgrind passes check the server at exit.)
# bats file_tags=sanitize

load helpers

setup () { requires python3 nbdinfo; }

@test "clients killed -9 mid-read: others still served, no fd or thread left behind" {
  start_sbnbd_unix pattern:64G
  local fds threads pids=() i
  fds=$(fd_count "$NBD_PID") threads=$(thread_count "$NBD_PID")
  for i in 1 2 3 4; do
    "$SBNBD_CLIENT" -q read "$NBD_URI" 3>&- &
    pids+=($!)
    kill_at_teardown $!
  done
  wait_for_threads "$NBD_PID" $((threads + 4))
  # A bystander connected before the kill must survive it.
  rawnbd_bg "$BATS_TEST_TMPDIR/b" greeting go req=read,0,4096 eof
  wait_for_line "$BATS_TEST_TMPDIR/b" "data=4096"
  kill -9 "${pids[@]}"
  run rawnbd greeting go req=read,0,65536 disc
  assert_success
  assert_line --index 2 "reply error=0 data=65536"
  # The bystander is still connected: its thread and socket remain.
  run wait_for_counts "$NBD_PID" $((fds + 1)) $((threads + 1)) 20
  assert_output "fds $((fds + 1)) threads $((threads + 1))"
  kill -9 "$RAW_PID"
  run wait_for_counts "$NBD_PID" "$fds" "$threads" 20
  assert_output "fds $fds threads $threads"
  sbnbd_alive "$NBD_PID"
}

@test "a writer killed -9 in the middle of its payload leaves the export usable" {
  start_sbnbd_unix memory:64M
  local fds threads
  fds=$(fd_count "$NBD_PID") threads=$(thread_count "$NBD_PID")
  # The writer announces 32 MiB, sends half, then stalls until killed.
  rawnbd_bg "$BATS_TEST_TMPDIR/w" greeting go partial-payload=33554432 eof
  wait_for_line "$BATS_TEST_TMPDIR/w" "payload bytes"
  kill -9 "$RAW_PID"
  run rawnbd greeting go req=write,0,4096 req=read,0,4096 disc
  assert_success
  assert_line --index 3 "reply error=0 data=4096"
  run wait_for_counts "$NBD_PID" "$fds" "$threads" 20
  assert_output "fds $fds threads $threads"
}
