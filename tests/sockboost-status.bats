#!/usr/bin/env bats
# sockboost status PID lists a running process's sockets, their send
# buffers, whether they are boosted and the process at the other end.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires qemu-nbd qemu-io ss
  make_data_file "$BATS_TEST_TMPDIR/disk.img" 4
}

@test "a boosted qemu-nbd and its plain client, side by side" {
  local sock=$BATS_TEST_TMPDIR/s.sock
  start_qemu_nbd "$sock" "$BATS_TEST_TMPDIR/disk.img"
  start_qemu_io "nbd+unix:///?socket=$sock" "$BATS_TEST_TMPDIR/io.out"
  wait_for_unix_tb "$QEMU_NBD_PID" "$BOOSTED_TB"
  wait_for_unix_tb "$QEMU_IO_PID" "$DEFAULT_TB"

  run "$SOCKBOOST" status "$QEMU_NBD_PID"
  assert_success
  assert_output --partial "process $QEMU_NBD_PID (qemu-nbd)"
  assert_output --partial "libsockboost.so: loaded ($LIBSOCKBOOST)"
  # The peer is named by its process, which ss -p knows.
  assert_output --regexp "unix +ESTAB +$BOOSTED_TB +yes +qemu-io $QEMU_IO_PID +$sock"

  run "$SOCKBOOST" status "$QEMU_IO_PID"
  assert_success
  assert_output --partial "libsockboost.so: not loaded"
  assert_output --regexp "unix +ESTAB +$DEFAULT_TB +no \(default\) +qemu-nbd $QEMU_NBD_PID +\(unnamed\)"
  stop_qemu_io
}

@test "TCP sockets show their peer and an honest verdict" {
  local port
  port=$(free_tcp_port)
  "$SOCKBOOST" run -- qemu-nbd -r -t -f raw -b 127.0.0.1 -p "$port" \
    --pid-file "$BATS_TEST_TMPDIR/pid" "$BATS_TEST_TMPDIR/disk.img" &
  kill_at_teardown $!
  wait_for_file "$BATS_TEST_TMPDIR/pid"
  start_qemu_io "nbd://127.0.0.1:$port" "$BATS_TEST_TMPDIR/io.out"
  local deadline=$((SECONDS + 10))
  until [ -n "$(tcp_tbs_of_pid "$QEMU_IO_PID")" ]; do
    [ $SECONDS -lt $deadline ] || fail "qemu-io never connected"
    sleep 0.05
  done

  run "$SOCKBOOST" status "$(cat "$BATS_TEST_TMPDIR/pid")"
  assert_success
  assert_output --regexp "tcp +ESTAB +[0-9]+ +n/a \(autotuned\) +127\.0\.0\.1:[0-9]+ \(qemu-io $QEMU_IO_PID\) +127\.0\.0\.1:$port"
  assert_output --partial "TCP_NODELAY is not visible to ss"
  stop_qemu_io
}

@test "a process without sockets says so" {
  sleep 30 &
  kill_at_teardown $!
  run "$SOCKBOOST" status $!
  assert_success
  assert_output --partial "no unix stream or TCP sockets, listening or connected"
}

@test "a missing process is an error" {
  local pid=$(($(cat /proc/sys/kernel/pid_max) + 1))
  run "$SOCKBOOST" status "$pid"
  assert_failure 1
  assert_output "sockboost: status: no process $pid"
}

@test "a process it may not inspect is an error" {
  sleep 30 &
  kill_at_teardown $!
  if [ "$(id -u)" -eq 0 ]; then
    requires setpriv
    sockboost_for_nobody
    run setpriv --reuid=65534 --regid=65534 --clear-groups \
      env "${NOBODY_ENV[@]}" "$NOBODY_SOCKBOOST" status $!
  else
    run "$SOCKBOOST" status 1
  fi
  assert_failure 1
  assert_output --partial "not permitted to inspect its sockets"
}

