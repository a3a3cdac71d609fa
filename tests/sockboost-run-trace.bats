#!/usr/bin/env bats
# sockboost run -v and -vv end to end: -v gives the settings line and the
# tuned sockets only; -vv traces each call on the sockets the library
# tuned or follows, including framing that turns itself off and why, and
# nothing on files or pipes.  (Not in the sanitized pass: python is not
# built with ASan.)

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
}

@test "-vv: a TCP stream that is not NBD turns its framing off, with the reason" {
  local port
  port=$(free_tcp_port)
  start_bg "$D/srv.out" python3 -c '
import socket, sys
s = socket.create_server(("127.0.0.1", int(sys.argv[1])))
print("listening", flush=True)
c, _ = s.accept()
c.recv(100)
c.sendall(b"HTTP/1.0 200 OK\r\n\r\n")' "$port"
  wait_for_line "$D/srv.out" listening
  run "$SOCKBOOST" run -vv -- python3 -c '
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
c.sendall(b"GET / HTTP/1.0\r\n\r\n")
c.recv(100)' "$port"
  assert_success
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ tcp send(to)? 18 bytes -> 18: passed through \(NBD framing off\)$'
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ framing off: stream does not start with NBDMAGIC$'
  # From then on the socket is tuned but no longer followed.
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ tcp recv(from)? -> 19: passed through$'
}

@test "-v: the settings line, and none of the per-call lines" {
  run "$SOCKBOOST" run -v -- python3 -c '
import socket
a, b = socket.socketpair()
a.send(b"x"); b.recv(1)'
  assert_success
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: settings: sndbuf 2097152, .*, debug 2, '
  run grep -cE ' (send|recv|read|write|close)' <<< "$output"
  assert_output 0
}

@test "-vv: calls on files and pipes are not traced, those on the socketpair are" {
  run "$SOCKBOOST" run -vv -- python3 -c '
import os, socket, sys
a, b = socket.socketpair()
f = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
r, w = os.pipe()
os.write(f, b"x"); os.write(w, b"y"); os.read(r, 1)
os.write(a.fileno(), b"z"); os.read(b.fileno(), 1)
print("fds", a.fileno(), b.fileno(), f, r, w)' "$D/file"
  assert_success
  local fds
  fds=$(awk '$1 == "fds"' <<< "$output")
  read -r _ a b f r w <<< "$fds"
  assert_line --regexp "^sockboost\[python3 [0-9]+\]: fd $a unix write 1 bytes -> 1: passed through \(unix: nothing to cork\)\$"
  assert_line --regexp "^sockboost\[python3 [0-9]+\]: fd $b unix read -> 1: passed through\$"
  run grep -cE "^sockboost\[python3 [0-9]+\]: fd ($f|$r|$w) " <<< "$output"
  assert_output 0
}
