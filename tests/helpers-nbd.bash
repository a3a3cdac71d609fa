# SPDX-License-Identifier: MIT
# Helpers for starting sbnbd-server in tests (sourced by helpers.bash).
#
#   start_sbnbd_unix [SERVER ARGS...] BACKEND   private unix socket
#   start_sbnbd_tcp [-b ADDR] [ARGS...] BACKEND  kernel-chosen port
#
# Both wait (bounded) for the pidfile, register the server for cleanup at
# teardown, and set:
#   NBD_PID   the server's pid          NBD_URI   the export's URI
#   NBD_SOCK  unix socket path (unix)   NBD_PORT  TCP port (tcp)
#   NBD_LOG   the server's stderr       NBD_PIDFILE
# Environment given on the call reaches the server, e.g.
#   LD_PRELOAD=$LIBSOCKBOOST start_sbnbd_unix pattern:1G
# Several servers may run in one test; each call overwrites the variables.

SBNBD_SEQ=0
SBNBD_START_TIMEOUT=${SBNBD_START_TIMEOUT:-20}

start_sbnbd_unix () {
  SBNBD_SEQ=$((SBNBD_SEQ + 1))
  NBD_SOCK=$BATS_TEST_TMPDIR/sbnbd-$SBNBD_SEQ.sock
  NBD_PORT=
  sbnbd_start -U "$NBD_SOCK" "$@"
}

start_sbnbd_tcp () {
  SBNBD_SEQ=$((SBNBD_SEQ + 1))
  NBD_SOCK=
  sbnbd_start -p 0 "$@" || return 1
  NBD_PORT=${NBD_URI##*:}
  NBD_PORT=${NBD_PORT%%/*}
}

# Start the server in the background with --pidfile and --print-uri and
# wait for it; fail with its log if it dies or takes too long.
sbnbd_start () {
  local base=$BATS_TEST_TMPDIR/sbnbd-$SBNBD_SEQ
  local cmd=("$SBNBD_SERVER")
  local deadline=$((SECONDS + SBNBD_START_TIMEOUT)) pid
  if [ -n "${SB_VALGRIND:-}" ]; then
    cmd=(valgrind -q --error-exitcode=99 --leak-check=full "${cmd[@]}")
  fi
  NBD_PIDFILE=$base.pid
  NBD_LOG=$base.log
  rm -f "$NBD_PIDFILE"
  # fd 3 is bats' own: a server holding it would stall the test run.
  "${cmd[@]}" --pidfile "$NBD_PIDFILE" --print-uri "$@" \
    > "$base.uri" 2> "$NBD_LOG" 3>&- &
  pid=$!
  cleanup_push "sbnbd_stop $pid"
  check_at_teardown "sbnbd_check_log $NBD_LOG"
  until [ -s "$NBD_PIDFILE" ]; do
    if ! sbnbd_alive "$pid"; then
      echo "sbnbd-server exited before listening; its log:" >&2
      cat "$NBD_LOG" >&2
      return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      echo "sbnbd-server did not write $NBD_PIDFILE in ${SBNBD_START_TIMEOUT}s" >&2
      return 1
    fi
    sleep 0.02
  done
  NBD_PID=$pid
  NBD_URI=$(head -n 1 "$base.uri")
}

# Is PID running?  (kill -0 also succeeds on a zombie not yet reaped.)
sbnbd_alive () {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# Stop server PID: SIGTERM, up to 10 s to exit, then SIGKILL.  Returns
# the server's exit status (after SIGTERM a clean server returns 0).
sbnbd_stop () {
  local pid=$1 deadline=$((SECONDS + 10)) status
  sbnbd_alive "$pid" || { wait "$pid" 2>/dev/null; return; }
  kill -TERM "$pid" 2>/dev/null
  while sbnbd_alive "$pid" && [ $SECONDS -lt $deadline ]; do
    sleep 0.02
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  status=$?
  return $status
}

# Fail if the server's log holds a sanitizer or valgrind report: the
# server runs in the background, so its exit status alone would not show.
sbnbd_check_log () {
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|^==[0-9]+== [A-Z]' "$1"; then
    echo "sbnbd-server reported memory errors; its log ($1):" >&2
    cat "$1" >&2
    return 1
  fi
}

# The NBD URI of export NAME (default "") on unix socket SOCK.
nbd_unix_uri () {
  echo "nbd+unix:///${2:-}?socket=$1"
}
