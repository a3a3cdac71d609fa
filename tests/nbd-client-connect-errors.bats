#!/usr/bin/env bats
# Failing to reach the server or the export: exit 1 and a message naming
# the socket, port or export and the reason.
# bats file_tags=sanitize

load helpers

@test "no socket at the path" {
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/none")"
  assert_failure 1
  assert_output "sbnbd-client: connect to unix socket $BATS_TEST_TMPDIR/none: No such file or directory"
}

@test "a socket nobody listens on any more" {
  python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
    "$BATS_TEST_TMPDIR/dead"
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/dead")"
  assert_failure 1
  assert_output "sbnbd-client: connect to unix socket $BATS_TEST_TMPDIR/dead: Connection refused"
}

@test "a closed TCP port" {
  local port
  port=$(free_tcp_port)
  run cl_client info "nbd://127.0.0.1:$port/"
  assert_failure 1
  assert_output "sbnbd-client: connect to 127.0.0.1 port $port: Connection refused"
}

@test "an export qemu-nbd does not have" {
  requires qemu-nbd
  truncate -s 1M "$BATS_TEST_TMPDIR/disk"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/disk" -x disk
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" other)"
  assert_failure 1
  assert_output --regexp "^sbnbd-client: server refused export 'other': no such export \(0x80000006\)"
  run cl_client -q read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s" disk)"
  assert_success
}

@test "something that is not an NBD server" {
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); c.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello, this is not NBD"); c.close()' \
    "$BATS_TEST_TMPDIR/web" 3>&- &
  kill_at_teardown $!
  wait_for_socket "$BATS_TEST_TMPDIR/web"
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/web")"
  assert_failure 1
  assert_output "sbnbd-client: not an NBD server (bad greeting magic)"
}
