# SPDX-License-Identifier: MIT
# Helpers for the fault, load and churn tests (sourced by helpers.bash).

RAWNBD=$SB_ROOT/tests/robust-rawnbd.py
CHURN=$SB_BUILD/tests/progs/churn-sockets
export RAWNBD

# Talk raw NBD to the server last started by start_sbnbd_unix:
#   rawnbd greeting go req=read,0,512 ...   (see tests/robust-rawnbd.py)
rawnbd () {
  timeout 60 python3 "$RAWNBD" "unix:$NBD_SOCK" "$@"
}

# Number of open descriptors / threads of PID.
fd_count () { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
thread_count () { find "/proc/$1/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

# Wait up to SECONDS for "fd_count PID" and "thread_count PID" to come back
# to FDS and THREADS (connection threads finish a moment after the client
# goes); print what was seen last either way.
wait_for_counts () {
  local pid=$1 fds=$2 threads=$3 deadline=$((SECONDS + ${4:-10})) f t
  while :; do
    f=$(fd_count "$pid") t=$(thread_count "$pid")
    if { [ "$f" -eq "$fds" ] && [ "$t" -eq "$threads" ]; } || [ $SECONDS -ge $deadline ]; then
      echo "fds $f threads $t"
      return 0
    fi
    sleep 0.05
  done
}

# rawnbd in the background with its output in FILE; RAW_PID is the python
# process itself (so that kill -9 really drops the connection), killed at
# teardown.
rawnbd_bg () {
  local out=$1; shift
  python3 "$RAWNBD" "unix:$NBD_SOCK" "$@" > "$out" 2>&1 3>&- &
  RAW_PID=$!
  kill_at_teardown "$RAW_PID"
}

# Wait (bounded) until PID runs at least N threads.
wait_for_threads () {
  local pid=$1 n=$2 deadline=$((SECONDS + 20))
  until [ "$(thread_count "$pid")" -ge "$n" ]; do
    [ $SECONDS -lt $deadline ] || { echo "$pid never reached $n threads" >&2; return 1; }
    sleep 0.05
  done
}
