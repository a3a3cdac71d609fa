#!/usr/bin/env bats
# SOCKBOOST_DEBUG=2 logs one line at load with the effective settings,
# then one line per tuned socket; 3 traces: one line per hooked call on a
# socket the library tuned or follows, with what the call returned and
# what the library did (MSG_MORE added or not and why, "left alone:
# already ..."), and nothing about other descriptors.  sockboost run -v
# and -vv: sockboost-run-trace.bats.
# bats file_tags=sanitize

load helpers

setup () {
  D=$BATS_TEST_TMPDIR
}

# The fds a log names in lines of its own kind: "fd N unix|tcp ...".
fds_in () {
  sed -nE 's/^sockboost\[[^]]*\]: fd ([0-9]+) (unix|tcp) .*/\1/p' "$1" | sort -u
}

@test "level 2: the settings line at load, one line per tuned end, no trace" {
  start_bg_boosted "$D/out" SOCKBOOST_DEBUG=2 SOCKBOOST_SNDBUF=1M "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$D/out" holding
  run grep '^sockboost' "$D/out"
  assert_equal "${#lines[@]}" 3
  assert_line --index 0 --regexp '^sockboost\[preload-sockets [0-9]+\]: settings: sndbuf 1048576, force auto, nodelay 1, cork auto, scope all, stats 0, debug 2, log stderr; net.core.wmem_max -?[0-9]+$'
  assert_line --index 1 --regexp "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB -> 2097152\$"
  assert_line --index 2 --regexp "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB -> 2097152\$"
}

@test "level 3: a buffer already large enough is left alone, and says so" {
  start_bg_boosted "$D/out" SOCKBOOST_DEBUG=3 SOCKBOOST_SNDBUF=64K "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$D/out" holding
  run grep -cE "^sockboost\[preload-sockets [0-9]+\]: fd [0-9]+ unix socketpair sndbuf $DEFAULT_TB left alone: already at least 131072\$" "$D/out"
  assert_output 2
}

@test "level 3 over TCP NBD: every call on the sockets traced, corking decisions given" {
  local port
  port=$(free_tcp_port)
  LD_PRELOAD=$(preload_value) SOCKBOOST_DEBUG=3 SOCKBOOST_LOG_FILE="$D/srv.log" \
    start_bg "$D/srv.out" "$SBNBD_SERVER" -p "$port" --pidfile "$D/pid" memory:1M
  wait_for_file "$D/pid"
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=3 SOCKBOOST_LOG_FILE="$D/cli.log" \
    "$SBNBD_CLIENT" -q write --split-writes --request-size 64K --length 256K pattern "nbd://127.0.0.1:$port/"
  assert_success
  local c=$D/cli.log p='^sockboost\[sbnbd-client [0-9]+\]: fd [0-9]+ tcp'
  grep -qE "$p socket -> [0-9]+: noted, tuned once connected or accepted\$" "$c"
  grep -qE "$p connect nodelay 0 -> 1\$" "$c"
  grep -qE "$p setsockopt -> 0: level 6 option 1 passed through\$" "$c"
  grep -qE "$p read -> [0-9]+: fed to the NBD framing\$" "$c"
  # Each WRITE header (32 bytes: extended headers, or 28) is corked, its
  # 64 KiB payload ends the message.
  run grep -cE "$p write (28|32) bytes -> (28|32): MSG_MORE added \(after an NBD header\)\$" "$c"
  assert_output 4
  run grep -cE "$p write 65536 bytes -> 65536: passed through \(at an NBD message boundary\)\$" "$c"
  assert_output 4
  grep -qE "$p close: forgotten\$" "$c"
  # Only sockets: the one the client connected, nothing about its other fds.
  run fds_in "$c"
  assert_output "$(sed -nE 's/.*: fd ([0-9]+) tcp socket -> .*/\1/p' "$c")"
  # The server side: its accepted socket, the reply headers it sends.
  wait_for_line "$D/srv.log" 'tcp accept nodelay 0 -> 1$'
  grep -qE 'fd [0-9]+ tcp sendmsg (16|32) bytes -> (16|32): passed through \(at an NBD message boundary\)$' "$D/srv.log"
}

@test "level 3: the client's writes to its stdout pipe are not traced" {
  start_bg "$D/srv.out" "$SBNBD_SERVER" -U "$D/s.sock" --pidfile "$D/pid" pattern:1M
  wait_for_file "$D/pid"
  run bash -c 'LD_PRELOAD=$1 SOCKBOOST_DEBUG=3 SOCKBOOST_LOG_FILE=$2 \
    "$3" -q --request-size 64K read "nbd+unix:///?socket=$4" - | wc -c' \
    _ "$(preload_value)" "$D/cli.log" "$SBNBD_CLIENT" "$D/s.sock"
  assert_output 1048576
  local p='^sockboost\[sbnbd-client [0-9]+\]: fd [0-9]+ unix'
  grep -qE "$p connect sndbuf $DEFAULT_TB -> $BOOSTED_TB\$" "$D/cli.log"
  grep -qE "$p sendmsg (28|32) bytes -> (28|32): passed through \(unix: nothing to cork\)\$" "$D/cli.log"
  # Sixteen 64 KiB writes went to fd 1, none of them in the log.
  run fds_in "$D/cli.log"
  assert_output "$(sed -nE 's/.*: fd ([0-9]+) unix socket -> .*/\1/p' "$D/cli.log")"
  [ "$output" -gt 2 ]
}
