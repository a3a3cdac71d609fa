#!/usr/bin/env bats
# fork() while other threads hold NBD framing locks: the child must not
# deadlock on a lock whose holder did not follow it, and the parent's
# traffic goes on intact.  Threads run split NBD writes and replies on
# tracked TCP sockets; the main thread forks 300 times; every child takes
# every inherited socket's lock and uses a fresh tracked socket.  A stuck
# child is killed by its own alarm and fails the run.
# bats file_tags=sanitize

load helpers

@test "300 forks while threads cork NBD traffic: no child stuck, every byte checked" {
  run timeout 120 env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 \
    "$SB_BUILD/tests/progs/preload-fork-threads" 4 300
  echo "$output" | grep -v ' stats: ' >&3 || true
  assert_success
  assert_line --regexp '^requests [1-9][0-9]* bytes-checked [1-9][0-9]* children-ok 300/300$'
  # The servers' reply headers were corked: the framing locks were in use.
  assert_line --regexp ' stats: [0-9]+ bytes sent in [0-9]+ calls, [1-9][0-9]* corked$'
}
