#!/usr/bin/env bats
# Non-NBD traffic under the library is never corked or altered: an HTTP
# exchange (python3 http.server and curl, both under the library) gives
# the same bytes as without it and strace shows no MSG_MORE; a TCP stream
# that carries the NBD magics in its middle is never corked either and
# arrives intact.

load helpers

setup () {
  requires strace curl python3
  printf 'sockboost %.0s' {1..2000} > "$BATS_TEST_TMPDIR/page.txt"
}

@test "HTTP: same response bytes, no MSG_MORE in either process" {
  local port server
  # fd 3 is bats' own: the server must not hold it.
  strace -f -o "$BATS_TEST_TMPDIR/server.trace" -e trace=sendto,sendmsg,write,writev \
    env LD_PRELOAD="$(preload_value)" python3 -u -c '
import http.server, os, socketserver, sys
os.chdir(sys.argv[1])
s = socketserver.TCPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
print("port", s.server_address[1], os.getpid(), flush=True)
s.serve_forever()' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/server.out" 2>&1 3>&- &
  # strace detaches on SIGTERM and leaves its tracee running: kill both.
  kill_at_teardown $!
  wait_for_line "$BATS_TEST_TMPDIR/server.out" '^port '
  read -r _ port server < <(grep -m1 '^port ' "$BATS_TEST_TMPDIR/server.out")
  kill_at_teardown "$server"
  run strace -f -o "$BATS_TEST_TMPDIR/curl.trace" -e trace=sendto,sendmsg,write,writev \
    env LD_PRELOAD="$(preload_value)" curl -sS -o "$BATS_TEST_TMPDIR/got.txt" \
    "http://127.0.0.1:$port/page.txt"
  assert_success
  cmp "$BATS_TEST_TMPDIR/page.txt" "$BATS_TEST_TMPDIR/got.txt"
  curl -sS -o "$BATS_TEST_TMPDIR/plain.txt" "http://127.0.0.1:$port/page.txt"
  cmp "$BATS_TEST_TMPDIR/plain.txt" "$BATS_TEST_TMPDIR/got.txt"
  # The exchange did go through the hooked send paths ...
  grep -qE 'GET /page.txt' "$BATS_TEST_TMPDIR/curl.trace"
  grep -qE 'sockboost sockboost' "$BATS_TEST_TMPDIR/server.trace"
  # ... and nothing got MSG_MORE.
  run grep -h MSG_MORE "$BATS_TEST_TMPDIR/curl.trace" "$BATS_TEST_TMPDIR/server.trace"
  assert_failure
}

@test "a TCP stream with the NBD magics in its middle: never corked, intact" {
  run strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=sendto,sendmsg,write,writev \
    env LD_PRELOAD="$(preload_value)" python3 -c '
import socket, struct
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname()); s, _ = l.accept()
pieces = [b"hello ", b"NBDMAGIC", b"IHAVEOPT\x00\x03",
          struct.pack(">IHHQQI", 0x25609513, 0, 1, 7, 0, 4096),
          struct.pack(">IIQ", 0x67446698, 0, 7), b"x" * 4096, b" bye"]
for p in pieces:
    s.sendall(p)
s.close()
got = b""
while True:
    d = c.recv(65536)
    if not d: break
    got += d
print("intact" if got == b"".join(pieces) else "corrupt")'
  assert_success
  assert_output intact
  grep -q 'NBDMAGIC' "$BATS_TEST_TMPDIR/trace"
  run grep MSG_MORE "$BATS_TEST_TMPDIR/trace"
  assert_failure
}
