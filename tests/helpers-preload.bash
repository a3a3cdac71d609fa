# SPDX-License-Identifier: MIT
# Helpers for the libsockboost.so tests (sourced by helpers.bash).

PRELOAD_SOCKETS=$SB_BUILD/tests/progs/preload-sockets
PRELOAD_ERRNO=$SB_BUILD/tests/progs/preload-errno
PRELOAD_THREADS=$SB_BUILD/tests/progs/preload-threads

# Run CMD in the background with output to FILE; killed at teardown.
# Sets BG_PID.
start_bg () {
  local out=$1; shift
  "$@" > "$out" 2>&1 &
  BG_PID=$!
  kill_at_teardown "$BG_PID"
}

# Run CMD in the background under the library (extra environment first).
start_bg_boosted () {
  local out=$1; shift
  start_bg "$out" env LD_PRELOAD="$(preload_value)" "$@"
}

# Wait up to SECONDS (default 10) for a line matching the ERE in FILE.
wait_for_line () {
  local file=$1 re=$2 deadline=$((SECONDS + ${3:-10}))
  until grep -qE "$re" "$file" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      echo "timed out waiting for /$re/ in $file:" >&2
      cat "$file" >&2
      return 1
    fi
    sleep 0.05
  done
}

# Wait for ss to list exactly N unix stream sockets of PID; print their tb.
unix_tbs_wait () {
  local pid=$1 n=$2 deadline=$((SECONDS + 10)) tbs
  while :; do
    tbs=$(unix_tbs_of_pid "$pid")
    if [ "$(printf '%s' "$tbs" | grep -c .)" -ge "$n" ] || [ $SECONDS -ge $deadline ]; then
      printf '%s\n' "$tbs"
      return 0
    fi
    sleep 0.05
  done
}

# Data segments per BYTES-sized message sent so far (from ss -ti) by the
# TCP socket whose SIDE (dport: connected to PORT, the default; sport:
# bound to PORT) matches, as "segs messages".
segs_per_message () {
  local port=$1 bytes=$2 side=${3:-dport}
  ss -tin "$side = :$port" | awk -v b="$bytes" '
    { for (i = 1; i <= NF; i++) {
        if ($i ~ /^bytes_sent:/) { split($i, a, ":"); sent = a[2] }
        if ($i ~ /^data_segs_out:/) { split($i, a, ":"); segs = a[2] } } }
    END { if (sent) printf "%d %d\n", segs, sent / b }'
}

# Under PREFIX... (a command prefix: env VAR=... or sockboost run ...),
# start a socketpair holder, an accept or accept4 server (HOW) and a
# client connected to it; print the send buffers (ss) of all four kinds
# of unix stream socket the library tunes (unix_tbs_four_all spells
# out the answer).
unix_tbs_four () {
  local how=$1 d sock; shift
  # A fresh directory per call: no line of an earlier round is waited for.
  d=$(mktemp -d "$BATS_TEST_TMPDIR/round.XXXXXX")
  sock=$d/s.sock
  start_bg "$d/pair" "$@" "$PRELOAD_SOCKETS" pair stream
  local pair=$BG_PID
  start_bg "$d/srv" "$@" "$PRELOAD_SOCKETS" unix-server "$sock" "$how"
  local srv=$BG_PID
  wait_for_line "$d/srv" listening
  start_bg "$d/cli" "$@" "$PRELOAD_SOCKETS" unix-client "$sock"
  local cli=$BG_PID
  wait_for_line "$d/pair" holding
  wait_for_line "$d/srv" holding
  wait_for_line "$d/cli" holding
  echo "pair $(unix_tbs_wait "$pair" 2 | tr '\n' ' ')"
  echo "$how $(unix_tbs_wait "$srv" 1)"
  echo "connect $(unix_tbs_wait "$cli" 1)"
  kill "$pair" "$srv" "$cli"
  wait "$pair" "$srv" "$cli" 2>/dev/null || true
}

# What unix_tbs_four HOW prints when every socket has send buffer TB.
unix_tbs_four_all () {
  local tb=$1 how=$2
  printf 'pair %s %s \n%s %s\nconnect %s' "$tb" "$tb" "$how" "$tb" "$tb"
}

PRELOAD_EDGE_CALLS=$SB_BUILD/tests/progs/preload-edge-calls

# Run preload-edge-calls MODE plain, then under the library with ENV...:
# the outputs must be identical.  Leaves the plain output in $output.
edge_calls_agree () {
  local mode=$1 plain; shift
  run "$PRELOAD_EDGE_CALLS" "$mode"
  assert_success
  plain=$output
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=0 "$@" \
    "$PRELOAD_EDGE_CALLS" "$mode"
  assert_success
  assert_output "$plain"
  output=$plain
}
