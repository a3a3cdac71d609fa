# SPDX-License-Identifier: MIT
# Helpers for the tests of the sockboost command (sourced by helpers.bash).

# The command under test always uses the library of the build under test.
export SOCKBOOST_LIBRARY="$LIBSOCKBOOST"

# Wait up to SECONDS (default 10) until a unix socket of PID has send
# buffer WANT; print what ss showed and fail if it never did.
wait_for_unix_tb () {
  local pid=$1 want=$2 deadline=$((SECONDS + ${3:-10})) tbs
  while :; do
    tbs=$(unix_tbs_of_pid "$pid")
    grep -qx -- "$want" <<<"$tbs" && return 0
    if [ $SECONDS -ge $deadline ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "pid $pid: wanted a unix socket with tb $want; ss shows: ${tbs:-none}" >&2
      return 1
    fi
    sleep 0.05
  done
}

# Serve FILE read-only with qemu-nbd on unix socket SOCK, under
# `sockboost run` unless the first argument is --plain; waits for the
# socket and sets QEMU_NBD_PID.
start_qemu_nbd () {
  local wrapper=("$SOCKBOOST" run --)
  if [ "$1" = --plain ]; then wrapper=(); shift; fi
  local sock=$1 file=$2
  "${wrapper[@]}" qemu-nbd -r -t -f raw -k "$sock" \
    --pid-file "$sock.pid" "$file" 2>"$sock.log" &
  QEMU_NBD_PID=$!
  kill_at_teardown "$QEMU_NBD_PID"
  wait_for_file "$sock.pid"
  wait_for_socket "$sock"
}

# A file of SIZE MiB of non-zero, non-repeating bytes, so that no tool can
# skip it as a hole and cmp sees any misplaced byte.
make_data_file () {
  head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1"
}

# Start qemu-io reading commands from a FIFO held open on fd 8, so a test
# can keep its NBD connection open while it looks at it; sets QEMU_IO_PID.
# Remaining arguments go before qemu-io (e.g. "$SOCKBOOST" run --).
start_qemu_io () {
  local uri=$1 out=$2
  shift 2
  mkfifo "$out.in"
  "$@" qemu-io -r -f raw "$uri" <"$out.in" >"$out" 2>&1 &
  QEMU_IO_PID=$!
  kill_at_teardown "$QEMU_IO_PID"
  exec 8>"$out.in"
  cleanup_push "exec 8>&-"
}

# Tell that qemu-io to quit and wait (bounded) for it.
stop_qemu_io () {
  echo quit >&8
  exec 8>&-
  timeout 10 tail --pid="$QEMU_IO_PID" -f /dev/null
}

# make install for PREFIX into a staging DESTDIR, as a packager does, then
# move the staged tree to PREFIX so that the substituted paths are real.
install_tree () {
  local prefix=$1 stage=$BATS_TEST_TMPDIR/stage
  make -s -C "$SB_ROOT" install DESTDIR="$stage" PREFIX="$prefix" >&2
  mkdir -p "${prefix%/*}"
  mv "$stage$prefix" "$prefix"
}

# Start sb-probe holding a socketpair and a connected pair on unix socket
# PATH (under the library when LD_PRELOAD is given on the call); wait
# (bounded) until it is ready and set PROBE_PID.
start_probe () {
  local out=$BATS_TEST_TMPDIR/probe.out deadline=$((SECONDS + 10))
  "$SB_BUILD/tools/sb-probe" "$1" >"$out" 3>&- &
  PROBE_PID=$!
  kill_at_teardown "$PROBE_PID"
  until grep -qx ready "$out" 2>/dev/null; do
    kill -0 "$PROBE_PID" 2>/dev/null || fail "sb-probe exited"
    [ $SECONDS -lt $deadline ] || fail "sb-probe not ready in 10 s"
    sleep 0.05
  done
}

# The sockboost command as the user nobody can run it, in NOBODY_SOCKBOOST,
# with NOBODY_ENV the variables that make it use those copies
# (env "${NOBODY_ENV[@]}" "$NOBODY_SOCKBOOST" ...): the checkout itself
# when nobody can reach it, else copies of the script, its parts, its
# helper programs and the library in a directory anyone may read (a
# checkout under /root, say, is closed to nobody, and the loader opens a
# preloaded library as the user).
sockboost_for_nobody () {
  local dir piece
  NOBODY_SOCKBOOST=$SOCKBOOST
  NOBODY_ENV=(SOCKBOOST_LIBRARY="$LIBSOCKBOOST")
  [ -n "${SOCKBOOST_ATTACH_HELPER:-}" ] &&
    NOBODY_ENV+=(SOCKBOOST_ATTACH_HELPER="$SOCKBOOST_ATTACH_HELPER")
  setpriv --reuid=65534 --regid=65534 --clear-groups \
    sh -c 'for f; do [ -r "$f" ] || exit 1; done' _ "$SOCKBOOST" \
    "$LIBSOCKBOOST" "$SB_BUILD/tools/sb-attach" ${SOCKBOOST_ATTACH_HELPER:+"$SOCKBOOST_ATTACH_HELPER"} &&
    return 0
  dir=$(mktemp -d /tmp/sockboost-nobody.XXXXXX)
  cleanup_push "rm -rf '$dir'"
  mkdir -p "$dir/tools" "$dir/preload"
  cp "$SB_ROOT/GNUmakefile" "$dir/"
  cp -R "$SB_ROOT"/tools/sockboost "$SB_ROOT"/tools/commands \
    "$SB_ROOT"/tools/sockboostlib "$SB_ROOT"/tools/benchlib "$dir/tools/"
  for piece in "$SB_BUILD"/tools/sb-*; do
    [ -x "$piece" ] && [ "${piece%.[od]}" = "$piece" ] && cp "$piece" "$dir/tools/"
  done
  cp "$LIBSOCKBOOST" "$dir/preload/libsockboost.so"
  NOBODY_SOCKBOOST=$dir/tools/sockboost
  NOBODY_ENV=(SOCKBOOST_LIBRARY="$dir/preload/libsockboost.so")
  if [ -n "${SOCKBOOST_ATTACH_HELPER:-}" ]; then
    cp "$SOCKBOOST_ATTACH_HELPER" "$dir/tools/sb-attach-under-test"
    NOBODY_ENV+=(SOCKBOOST_ATTACH_HELPER="$dir/tools/sb-attach-under-test")
  fi
  chmod -R a+rX "$dir"
}
