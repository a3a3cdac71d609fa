#!/usr/bin/env bats
# sockboost status of an idle server shows the sockets it listens on, and
# says that no client is connected yet.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires ss
}

@test "an idle unix server shows its listening socket" {
  start_sbnbd_unix memory:1M
  run "$SOCKBOOST" status "$NBD_PID"
  assert_success
  assert_line --regexp "^  [0-9]+ +unix +LISTEN +[0-9]+ +n/a \(listening\) +- +$NBD_SOCK\$"
  assert_output --partial "listening only: no client is connected now"
}

@test "without the library, the note points to run and attach, and promises nothing" {
  start_sbnbd_unix memory:1M
  run "$SOCKBOOST" status "$NBD_PID"
  assert_success
  assert_output --partial "libsockboost.so: not loaded"
  refute_output --partial "the library tunes each"
  assert_output --partial "'sockboost run'"
  assert_output --partial "'sockboost attach --watch $NBD_PID'"
}

@test "with the library loaded, the note says it tunes each connection accepted" {
  LD_PRELOAD=$LIBSOCKBOOST start_sbnbd_unix memory:1M
  run "$SOCKBOOST" status "$NBD_PID"
  assert_success
  assert_output --partial "libsockboost.so: loaded"
  assert_output --partial "the library tunes each"$'\n'"  connection as the program accepts it."
  refute_output --partial "sockboost attach"
}

@test "an idle TCP server shows its listening socket" {
  start_sbnbd_tcp memory:1M
  run "$SOCKBOOST" status "$NBD_PID"
  assert_success
  assert_line --regexp "^  [0-9]+ +tcp +LISTEN +[0-9]+ +n/a \(listening\) +- +127\.0\.0\.1:$NBD_PORT\$"
  assert_output --partial "listening only"
}

@test "once a client connects, the note about listening only goes" {
  requires qemu-io
  start_sbnbd_unix memory:1M
  # qemu-io stays connected while its commands' FIFO is held open.
  mkfifo "$BATS_TEST_TMPDIR/in"
  qemu-io -r -f raw "$NBD_URI" <"$BATS_TEST_TMPDIR/in" >/dev/null 2>&1 3>&- &
  kill_at_teardown $!
  exec 8>"$BATS_TEST_TMPDIR/in"
  cleanup_push "exec 8>&-"
  local deadline=$((SECONDS + 10))
  until "$SOCKBOOST" status "$NBD_PID" | grep -q ' ESTAB '; do
    [ $SECONDS -lt $deadline ] || fail "qemu-io never connected"
    sleep 0.05
  done
  run "$SOCKBOOST" status "$NBD_PID"
  assert_line --regexp "^  [0-9]+ +unix +LISTEN "
  assert_line --regexp "^  [0-9]+ +unix +ESTAB .* qemu-io [0-9]+ +$NBD_SOCK\$"
  refute_output --partial "listening only"
}
