# SPDX-License-Identifier: MIT
# Host mode with the watcher as its TCP part (host/watch.h), in a test
# (sourced by helpers.bash, on top of helpers-host.bash): enable
# --watcher on the test's cgroup, with the watcher stopped at teardown.
#
#   hw_enable [ARG...]       hm_enable --watcher ARG...; the watcher goes
#                            at teardown (disable; KILL if it outlives it)
#   hw_watcher_pid           the watcher's pid, from status --json
#   hw_watcher_count NAME    one of the watcher's counts in status --json
#   hw_sockets ARG...        tests/watcher-sockets.py ARG... in the test's
#                            cgroup (its sockets and what it waits for)
#   hw_sockets_py SCRIPT ARG...
#                            tests/SCRIPT ARG... there, the same way

hw_enable () {
  local pid
  hm_enable --watcher "$@"
  pid=$(hw_watcher_pid) || fail "no watcher after enable --watcher"
  # Disable stops it; if a test broke that, the pid goes anyway (it is
  # the test's own watcher, found through the test's own pins).
  cleanup_push "kill -KILL $pid 2>/dev/null"
  cleanup_push "hm_host disable >/dev/null 2>&1"
}

hw_watcher_pid () {
  hm_host status --json | jq -e '.watcher.pid // empty'
}

hw_watcher_count () {
  hm_host status --json | jq -e ".watcher.$1"
}

hw_sockets () {
  hw_sockets_py watcher-sockets.py "$@"
}

hw_sockets_py () {
  local script=$1
  shift
  "${HM_IN_CGROUP[@]}" "$HM_CGROUP" python3 "$BATS_TEST_DIRNAME/$script" "$@"
}
