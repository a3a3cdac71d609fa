#!/usr/bin/env bats
# SOCKBOOST_SCOPE=nbd: a socket is tuned only once it carries an NBD
# handshake.  One process (python3 under the library) holds a unix
# socketpair that carries other bytes and a unix connection to
# sbnbd-server on which it starts an NBD handshake: ss shows the boosted
# send buffer on the NBD socket only, and the log (level 2) names only it.
# The server, under the library too, tunes its accepted NBD socket.

load helpers

setup () {
  requires ss python3
  LOG=$BATS_TEST_TMPDIR/sb.log
  LD_PRELOAD="$(preload_value)" SOCKBOOST_SCOPE=nbd SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE=$LOG start_sbnbd_unix memory:1M
}

# Python: socketpair with non-NBD bytes, then greeting, client flags and
# the start of an option (IHAVEOPT) to the server; then wait to be killed.
client_script='
import socket, struct, sys, time
a, b = socket.socketpair()
a.sendall(b"GET / HTTP/1.0\r\n\r\n"); b.recv(64)
b.sendall(b"hello, not NBD"); a.recv(64)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect(sys.argv[1])
greeting = b""
while len(greeting) < 18:
    greeting += c.recv(18 - len(greeting))
c.sendall(struct.pack(">I", 3))
c.sendall(b"IHAVEOPT" + struct.pack(">II", 1, 0))
print("fds pair", a.fileno(), b.fileno(), "nbd", c.fileno(), flush=True)
time.sleep(60)
'

@test "scope=nbd: the NBD socket is tuned, the other unix socket is not" {
  start_bg "$BATS_TEST_TMPDIR/client.out" env LD_PRELOAD="$(preload_value)" \
    SOCKBOOST_SCOPE=nbd SOCKBOOST_DEBUG=2 SOCKBOOST_LOG_FILE=$LOG \
    python3 -c "$client_script" "$NBD_SOCK"
  local client=$BG_PID
  wait_for_line "$BATS_TEST_TMPDIR/client.out" '^fds pair'
  read -r _ _ pa pb _ nbdfd < "$BATS_TEST_TMPDIR/client.out"
  run unix_tbs_wait "$client" 3
  echo "client tb: $output" >&3
  [ "$(grep -cx "$BOOSTED_TB" <<< "$output")" -eq 1 ]
  [ "$(grep -cx "$DEFAULT_TB" <<< "$output")" -eq 2 ]
  # The server's accepted NBD socket is tuned too.
  run unix_tbs_wait "$NBD_PID" 1
  assert_line "$BOOSTED_TB"
  # The log names the NBD socket and says nothing of the pair.
  grep -E "^sockboost\[python3 $client\]: fd $nbdfd unix connect sndbuf [0-9]+ -> $BOOSTED_TB$" "$LOG"
  run grep -E "^sockboost\[python3 $client\]: fd ($pa|$pb) " "$LOG"
  assert_failure
}
