# SPDX-License-Identifier: MIT
# Helpers for the sockboost attach tests (sourced by helpers.bash).

SB_ATTACH_HELPER=$SB_BUILD/tools/sb-attach

# Make 'sockboost attach' run the helper of the build under test, under
# valgrind in the valgrind pass (through a script: the command execs one
# file).  Call from setup.  ATTACH_TMP is a scratch directory that other
# users may enter (bats' own is root's alone).
use_attach_helper () {
  requires ss
  ATTACH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sb-attach-test.XXXXXX")
  chmod 0755 "$ATTACH_TMP"
  cleanup_push "rm -rf '$ATTACH_TMP'"
  if [ -z "${SB_VALGRIND:-}" ]; then
    export SOCKBOOST_ATTACH_HELPER=$SB_ATTACH_HELPER
    return
  fi
  export SOCKBOOST_ATTACH_HELPER=$ATTACH_TMP/sb-attach-under-valgrind
  printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full %q "$@"\n' \
    "$SB_ATTACH_HELPER" >"$SOCKBOOST_ATTACH_HELPER"
  chmod +x "$SOCKBOOST_ATTACH_HELPER"
}

# Valgrind 3.19 (Debian 12) does not implement pidfd_open/pidfd_getfd:
# there the helper can only be run up to its first pidfd call.
skip_if_valgrind_lacks_pidfd () {
  [ -n "${SB_VALGRIND:-}" ] || return 0
  if valgrind --log-file=/dev/null "$SB_ATTACH_HELPER" --dry-run $$ 2>&1 |
      grep -q 'not supported by this kernel'; then
    sb_skip "$(valgrind --version) does not implement pidfd_open/pidfd_getfd (the plain and ASan passes run this test)"
  fi
}

# The static echo server and client (tests/attach-echo.c): LD_PRELOAD
# cannot reach them.  Sets ATTACH_ECHO.
build_static_echo () {
  ATTACH_ECHO=$BATS_TEST_TMPDIR/attach-echo
  cc -static -O2 -o "$ATTACH_ECHO" "$SB_ROOT/tests/attach-echo.c"
}

# Start the echo server on SOCK (extra environment first); sets ECHO_PID.
start_echo_server () {
  local sock=$1
  shift
  start_bg "$sock.out" env "$@" "$ATTACH_ECHO" serve "$sock"
  ECHO_PID=$BG_PID
  wait_for_line "$sock.out" '^listening$'
}

# Start a client of SOCK that sends what the test writes to fd 9 and
# stores the echo in OUT; wait until the server has accepted it as its
# Nth connection.  Sets CLIENT_PID.
start_echo_client () {
  local sock=$1 out=$2 n=$3
  mkfifo "$out.in"
  start_bg "$out.err" sh -c 'exec "$0" client "$1" <"$2" >"$3"' \
    "$ATTACH_ECHO" "$sock" "$out.in" "$out"
  CLIENT_PID=$BG_PID
  exec 9>"$out.in"
  cleanup_push "exec 9>&-"
  wait_for_line "$sock.out" "^accepted $n\$"
}

# End the client's input and wait (bounded) until it has all the echo.
finish_echo_client () {
  exec 9>&-
  timeout 20 tail --pid="$CLIENT_PID" -f /dev/null
}

# Wait until SIZE bytes are in FILE (the echo caught up), at most 20 s.
wait_for_size () {
  local file=$1 size=$2 deadline=$((SECONDS + 20))
  until [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -ge "$size" ]; do
    [ $SECONDS -lt $deadline ] || { echo "only $(stat -c %s "$file") of $size bytes in $file" >&2; return 1; }
    sleep 0.05
  done
}

# Wait at most MS milliseconds (measured, not rounded to seconds) for a
# unix socket of PID with send buffer WANT.
wait_for_unix_tb_ms () {
  local pid=$1 want=$2 ms=$3 start=${EPOCHREALTIME/./} tbs
  until grep -qx -- "$want" <<<"$(unix_tbs_of_pid "$pid")"; do
    if [ $(((${EPOCHREALTIME/./} - start) / 1000)) -ge "$ms" ]; then
      echo "pid $pid: no unix socket with tb $want after $ms ms; ss shows: $(unix_tbs_of_pid "$pid")" >&2
      return 1
    fi
    sleep 0.02
  done
}

# Start tests/attach-holder.py with ARGS, its commands sent through fd 9;
# sets HOLDER_PID.
start_holder () {
  HOLDER_OUT=$BATS_TEST_TMPDIR/holder.out
  mkfifo "$HOLDER_OUT.in"
  start_bg "$HOLDER_OUT" sh -c 'in=$1; shift; exec python3 "$@" <"$in"' sh \
    "$HOLDER_OUT.in" "$SB_ROOT/tests/attach-holder.py" "$@"
  HOLDER_PID=$BG_PID
  exec 9>"$HOLDER_OUT.in"
  cleanup_push "exec 9>&-"
  wait_for_line "$HOLDER_OUT" '^ready$'
}

# Send the holder COMMAND (report, accept) and print its answer.
holder_says () {
  local deadline=$((SECONDS + 10)) n
  n=$(($(grep -c '^done$' "$HOLDER_OUT") + 1))
  echo "$1" >&9
  until [ "$(grep -c '^done$' "$HOLDER_OUT")" -ge "$n" ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "the holder did not answer '$1':" >&2
      cat "$HOLDER_OUT" >&2
      return 1
    fi
    sleep 0.02
  done
  awk -v n="$n" '/^done$/ { round++; next } round == n - 1 && !/^ready$/' \
    "$HOLDER_OUT"
}
