#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Root's tools never wait on a socket's linger.  They look at another
# process's sockets through copies (pidfd_getfd); a process that closes
# its own descriptor while root holds a copy leaves root's close the
# last, and the last close of a TCP socket with SO_LINGER set and
# unsent data waits up to the linger time, which that process chose.
# Here status PID's copy of such a socket (linger 30 s) is the last one
# (strace holds status 2 s after each pidfd_getfd, and the process
# closes its own descriptor meanwhile): status must still return
# within seconds, not 30.

load helpers

@test "host status PID: a copy of a lingering socket, left the last one, does not hold root" {
  hm_setup
  requires strace python3
  local out=$BATS_TEST_TMPDIR/lingering.out fd before start elapsed
  hm_enable >/dev/null
  python3 "$SB_TESTS_DIR/host-lingering-socket.py" 30 >"$out" 3>&- &
  local holder=$!
  kill_at_teardown "$holder"
  wait_for_file "$out" || fail "the process did not get ready"
  fd=$(awk '/^ready/ { print $2 }' "$out")
  [ -n "$fd" ] || fail "no descriptor from the process: $(cat "$out")"
  # status takes a copy of each of its sockets in turn, 2 s apart: the
  # process closes its own descriptor mid-way through the copy of fd.
  before=0
  for f in /proc/"$holder"/fd/*; do
    [[ "$(readlink "$f")" == socket:* ]] && [ "${f##*/}" -lt "$fd" ] &&
      before=$((before + 1))
  done
  start=$SECONDS
  strace -o /dev/null -e trace=pidfd_getfd -e inject=pidfd_getfd:delay_exit=2000000 \
    "$HM_SB_HOST" status --pin-dir "$HM_PINS" "$holder" >/dev/null 3>&- &
  local status_pid=$!
  sleep $((2 * before + 1))
  kill -USR1 "$holder"
  wait "$status_pid" || fail "status PID failed"
  elapsed=$((SECONDS - start))
  echo "status PID took ${elapsed} s; $(sed -n 2p "$out")" >&3
  grep -q "^closed its own" "$out" || fail "the process did not close its descriptor: $(cat "$out")"
  [ "$elapsed" -lt 20 ] || fail "status PID waited ${elapsed} s: the socket's linger held it"
}
