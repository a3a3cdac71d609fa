#!/usr/bin/env bats
# sockboost run -v (SOCKBOOST_DEBUG=2) logs one line at load with the
# effective settings, then one line per tuned socket; -vv (3) traces: one
# line per hooked call on a socket the library tuned or follows, with
# what the call returned and what the library did (MSG_MORE added or not
# and why, "left alone: already ...", "framing off: ..."), and nothing
# about other descriptors.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
}

# The fds a log names in lines of its own kind: "fd N unix|tcp ...".
fds_in () {
  sed -nE 's/^sockboost\[[^]]*\]: fd ([0-9]+) (unix|tcp) .*/\1/p' "$1" | sort -u
}

@test "-v: the settings line at load, one line per tuned end, no trace" {
  start_bg "$D/out" "$SOCKBOOST" run -v --sndbuf 1M -- "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$D/out" holding
  run grep '^sockboost' "$D/out"
  assert_equal "${#lines[@]}" 3
  assert_line --index 0 --regexp '^sockboost\[preload-sockets [0-9]+\]: settings: sndbuf 1048576, force auto, nodelay 1, cork auto, scope all, stats 0, debug 2, log stderr; net.core.wmem_max -?[0-9]+$'
  assert_line --index 1 --regexp "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB -> 2097152\$"
  assert_line --index 2 --regexp "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB -> 2097152\$"
}

@test "-vv: a buffer already large enough is left alone, and says so" {
  start_bg "$D/out" "$SOCKBOOST" run -vv --sndbuf 64K -- "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$D/out" holding
  run grep -cE "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB left alone: already at least 131072\$" "$D/out"
  assert_output 2
}

@test "-vv over TCP NBD: every call on the sockets traced, corking decisions given" {
  local port
  port=$(free_tcp_port)
  LD_PRELOAD=$(preload_value) SOCKBOOST_DEBUG=3 SOCKBOOST_LOG_FILE="$D/srv.log" \
    start_bg "$D/srv.out" "$SBNBD_SERVER" -p "$port" --pidfile "$D/pid" memory:1M
  wait_for_file "$D/pid"
  run "$SOCKBOOST" run -vv --log-file "$D/cli.log" -- "$SBNBD_CLIENT" -q \
    write --split-writes --request-size 64K --length 256K pattern "nbd://127.0.0.1:$port/"
  assert_success
  local c=$D/cli.log p='^sockboost\[sbnbd-client [0-9]+\]: fd [0-9]+ tcp'
  grep -qE "$p socket -> [0-9]+: noted, tuned once connected or accepted\$" "$c"
  grep -qE "$p connect nodelay 0 -> 1\$" "$c"
  grep -qE "$p setsockopt -> 0: level 6 option 1 passed through\$" "$c"
  grep -qE "$p read -> [0-9]+: fed to the NBD framing\$" "$c"
  # Each WRITE header is corked, its 64 KiB payload ends the message.
  run grep -cE "$p write 28 bytes -> 28: MSG_MORE added \(inside an NBD message\)\$" "$c"
  assert_output 4
  run grep -cE "$p write 65536 bytes -> 65536: passed through \(at an NBD message boundary\)\$" "$c"
  assert_output 4
  grep -qE "$p close: forgotten\$" "$c"
  # Only sockets: the one the client connected, nothing about its other fds.
  run fds_in "$c"
  assert_output "$(sed -nE 's/.*: fd ([0-9]+) tcp socket -> .*/\1/p' "$c")"
  # The server side: its accepted socket, the reply headers it sends.
  wait_for_line "$D/srv.log" 'tcp accept nodelay 0 -> 1$'
  grep -qE 'fd [0-9]+ tcp sendmsg 16 bytes -> 16: passed through \(at an NBD message boundary\)$' "$D/srv.log"
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
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ tcp send(to)? 18 bytes -> 18: passed through \(at an NBD message boundary\)$'
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ framing off: stream does not start with NBDMAGIC$'
  # From then on the socket is tuned but no longer followed.
  assert_line --regexp '^sockboost\[python3 [0-9]+\]: fd [0-9]+ tcp recv(from)? -> 19: passed through$'
}

@test "-v shows none of the per-call lines" {
  run "$SOCKBOOST" run -v -- python3 -c '
import socket
a, b = socket.socketpair()
a.send(b"x"); b.recv(1)'
  assert_success
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
