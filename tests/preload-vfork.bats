#!/usr/bin/env bats
# A vfork child shares its parent's memory, the library's tables
# included, but has descriptors of its own: when it closes the parent's
# sockets before exec (dup2 over one, close, close_range), the parent's
# sockets stay open and the library must go on following them.  Before,
# the child's close erased the parent's entries: the child printed the
# stats, and the parent's later writes were neither corked nor counted.
# bats file_tags=sanitize

load helpers

@test "a vfork child closing tracked sockets changes nothing for the parent" {
  run env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 \
    "$SB_BUILD/tests/progs/preload-vfork" 10
  echo "$output" >&3
  assert_success
  assert_line --regexp '^pid [0-9]+ child status 0 requests 20$'
  local pid log=$output
  pid=$(sed -n 's/^pid \([0-9]*\) child .*/\1/p' <<< "$log")
  # Both sockets report once, from the parent, at its exit: the client's
  # with all 20 WRITE headers corked (and the handshake and DISC sends).
  run grep -c ' stats: ' <<< "$log"
  assert_output 2
  run grep -cE "^sockboost\[preload-vfork $pid\]: fd [0-9]+ stats: [0-9]+ bytes sent in 43 calls, 20 corked\$" <<< "$log"
  assert_output 1
}
