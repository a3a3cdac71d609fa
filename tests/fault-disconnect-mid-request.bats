#!/usr/bin/env bats
# Clients that vanish mid-header, mid-payload, or before the payload of a
# request that is being refused anyway cost the server nothing: each one's
# thread and socket go away, and the export keeps serving.
# bats file_tags=sanitize

load helpers

setup () {
  requires python3
  start_sbnbd_unix memory:64M
  FDS=$(fd_count "$NBD_PID") THREADS=$(thread_count "$NBD_PID")
}

# After each disconnect: counts back to idle and a fresh client served.
assert_server_whole () {
  run wait_for_counts "$NBD_PID" "$FDS" "$THREADS" 20
  assert_output "fds $FDS threads $THREADS"
  run rawnbd greeting go req=write,0,512 req=read,0,512 disc
  assert_success
  assert_line --index 3 "reply error=0 data=512"
}

@test "disconnect after 1, 4, 16 and 27 bytes of a request header" {
  local n
  for n in 1 4 16 27; do
    run rawnbd greeting go partial-header=$n close
    assert_success
  done
  assert_server_whole
}

@test "disconnect halfway through a 32 MiB write payload" {
  run rawnbd greeting go partial-payload=33554432 close
  assert_success
  assert_server_whole
}

@test "disconnect after the header of a write that will be refused (out of range)" {
  run rawnbd greeting go req-nopayload=write,0xffffffffffff0000,65536 close
  assert_success
  assert_server_whole
}

@test "disconnect in the middle of the handshake: greeting read, nothing sent" {
  run python3 - "$NBD_SOCK" <<'PY'
import socket, sys
for sent in (b"", b"\0\0", b"\0\0\0\3IHAVE"):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.recv(18)
    s.sendall(sent)
    s.close()
print("done")
PY
  assert_output done
  assert_server_whole
}
