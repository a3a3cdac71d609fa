#!/usr/bin/env bats
# A program that sends each WRITE's data with its header, in one call
# (sbnbd-client's default, QEMU's sendmsg), has nothing to cork: the
# library stops following that socket at the first such request, so its
# sends read nothing ahead (no process_vm_readv) and take the fast path.
# One that writes header and data apart is still corked, every header.
# Counted with strace on the client under the library.

load helpers

setup () {
  requires strace
  start_sbnbd_tcp memory:64M
}

# Run the client under strace with ARGS...; set READS to its
# process_vm_readv calls and CORKED to its sends with MSG_MORE.
client_under_strace () {
  local trace=$BATS_TEST_TMPDIR/trace
  run strace -f -o "$trace" -e trace=process_vm_readv,sendto,sendmsg \
    -e signal=none env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    "$SBNBD_CLIENT" -q "$@" --request-size 4K --queue-depth 1 --length 1M \
    write pattern "$NBD_URI"
  assert_success
  READS=$(grep -c 'process_vm_readv(' "$trace" || true)
  CORKED=$(grep -c 'MSG_MORE' "$trace" || true)
  echo "$* reads $READS corked $CORKED" >&3
}

@test "256 whole WRITEs: framing off after the first, nothing read ahead" {
  client_under_strace
  assert_line --regexp 'framing off: the program sends whole NBD messages: nothing to cork$'
  [ "$READS" -lt 16 ]
  [ "$CORKED" -eq 0 ]
}

@test "256 split WRITEs: every header read ahead and corked" {
  client_under_strace --split-writes
  refute_line --partial 'sends whole NBD messages'
  [ "$READS" -ge 256 ]
  [ "$CORKED" -eq 256 ]
}
