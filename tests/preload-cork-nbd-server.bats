#!/usr/bin/env bats
# nbd-server sets TCP_NODELAY on the connections it accepts and writes
# each READ reply in pieces (strace): with simple replies (3.21 in Debian
# 11, 3.24 in Debian 12) the 16-byte header, then the data: two TCP
# segments per 4 KiB reply; with structured replies (3.26 in Debian 13)
# the chunk's 20-byte header, its 8-byte offset, the data, then a closing
# chunk of its own: four.  Under the library each header announcing a
# payload is corked (MSG_MORE), which saves one segment per reply: one
# segment, or three (the offset leaves with its header, the data and the
# closing chunk apart: the library never holds a send that ends inside a
# payload or at the end of a message).  nbd-server's data are as without
# it, and the library's tracker follows either kind of reply.  Counted
# from outside with ss -ti (data_segs_out) on the server's live socket.

load helpers

setup () {
  requires nbd-server ss cmp
  DISK=$BATS_TEST_TMPDIR/disk
  cl_random_file "$DISK" 8M
}

# Start nbd-server on a free port of 127.0.0.1 for DISK, every process
# getting ENV...; sets PORT.
start_nbd_server_tcp () {
  local dir=$BATS_TEST_TMPDIR/nbd-server.$RANDOM
  mkdir -p "$dir"
  PORT=$(free_tcp_port)
  printf '[generic]\nport = %s\nlistenaddr = 127.0.0.1\nallowlist = true\n[disk]\nexportname = %s\n' \
    "$PORT" "$DISK" > "$dir/conf"
  env "$@" nbd-server -C "$dir/conf" -p "$dir/pid" 3>&- || return 1
  cleanup_push "kill \$(cat '$dir/pid') 2>/dev/null"
  wait_for_file "$dir/pid"
  local deadline=$((SECONDS + 10))
  until ss -Htln "sport = :$PORT" | grep -q .; do
    [ $SECONDS -lt $deadline ] || { echo "nbd-server did not listen on $PORT" >&2; return 1; }
    sleep 0.05
  done
}

# With nbd-server under ENV..., read the disk 4 KiB at a time at queue
# depth 1, over and over; set RATIO to the server socket's segments per
# reply times 100 once 2000 replies have gone.  Not under 'run': the
# processes must be registered for cleanup in the test's own shell.

# Wait up to 10 s for a line matching the ERE in one of DIR's lib.*.log.
wait_for_line_in () {
  local deadline=$((SECONDS + 10))
  until cat "$1"/lib.*.log 2>/dev/null | grep -qE "$2"; do
    [ $SECONDS -lt $deadline ] || { echo "no /$2/ in $1/lib.*.log" >&2; return 1; }
    sleep 0.05
  done
}
measure () {
  start_nbd_server_tcp "$@"
  start_bg "$BATS_TEST_TMPDIR/client" sh -c "while env -u LD_PRELOAD '$SBNBD_CLIENT' -q \
    --request-size 4K --queue-depth 1 read nbd://127.0.0.1:$PORT/disk /dev/null; do :; done"
  local deadline=$((SECONDS + 30)) sample
  while :; do
    sample=$(segs_per_message "$PORT" $((4096 + 16)) sport | sort -n | tail -n 1)
    [ -n "$sample" ] && [ "${sample#* }" -ge 2000 ] && break
    [ $SECONDS -lt $deadline ] || { echo "no progress: $sample" >&2; return 1; }
    sleep 0.1
  done
  echo "segments replies: $sample" >&3
  set -- $sample
  RATIO=$((100 * $1 / $2))
}

# Does the nbd-server on PORT negotiate structured replies?  yes or no.
structured_replies () {
  cl_client info "nbd://127.0.0.1:$PORT/disk" | sed -n 's/^structured replies: //p'
}

@test "nbd-server's 4 KiB read replies: one segment fewer each under the library (the header corked)" {
  local structured plain boosted
  start_nbd_server_tcp LD_PRELOAD=
  structured=$(structured_replies)
  [ -n "$structured" ]
  measure LD_PRELOAD=
  plain=$RATIO
  measure LD_PRELOAD="$(preload_value)"
  boosted=$RATIO
  # Its package's version: nbd-server -V says 3.18 in 3.21, 3.26.1 in 3.27.1.
  echo "# nbd-server $(dpkg-query -W -f '${Version}' nbd-server 2>/dev/null)," \
    "structured replies: $structured; segments per reply x 100: $plain plain, $boosted boosted" >&3
  if [ "$structured" = yes ]; then
    [ "$plain" -ge 380 ] && [ "$plain" -le 420 ]
    [ "$boosted" -ge 290 ] && [ "$boosted" -le 320 ]
  else
    [ "$plain" -ge 180 ] && [ "$plain" -le 210 ]
    [ "$boosted" -le 110 ]
  fi
}

@test "nbd-server under the library: its replies followed, headers corked, the data intact" {
  local d=$BATS_TEST_TMPDIR structured
  start_nbd_server_tcp LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    SOCKBOOST_STATS=1 SOCKBOOST_LOG_FILE="$d/lib.%p.log"
  structured=$(structured_replies)
  [ -n "$structured" ]
  run env -u LD_PRELOAD "$SBNBD_CLIENT" --json --request-size 64K \
    read "nbd://127.0.0.1:$PORT/disk" "$d/out"
  assert_success
  assert_output --partial "\"structured_replies\": $([ "$structured" = yes ] && echo true || echo false)"
  cmp "$DISK" "$d/out"
  # The connection's process logs its stats when the client has gone:
  # a header corked for each of the read's 128 replies (and for some of
  # the handshake's; info's connection corks only those).
  wait_for_line_in "$d" ' stats: [0-9]+ bytes sent in [0-9]+ calls, [1-9][0-9]* corked'
  run grep -hE ' stats: [0-9]+ bytes sent in [0-9]+ calls, [1-9][0-9]* corked' "$d"/lib.*.log
  echo "# $output" >&3
  [ "$(awk '{ print $(NF - 1) }' <<<"$output" | sort -n | tail -n 1)" -ge 128 ]
  run grep -h 'framing off' "$d"/lib.*.log
  assert_output ''
}
