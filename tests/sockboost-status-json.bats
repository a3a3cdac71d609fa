#!/usr/bin/env bats
# sockboost status --json prints one valid JSON object with the process,
# whether the library is loaded, and each socket with its peer.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires ss jq python3
}

@test "status --json is valid JSON and says what the table says" {
  LD_PRELOAD=$LIBSOCKBOOST start_probe "$BATS_TEST_TMPDIR/probe.sock"
  run --separate-stderr "$SOCKBOOST" status --json "$PROBE_PID"
  assert_success
  assert_equal "$stderr" ""
  python3 -m json.tool <<<"$output" >/dev/null || fail "python3 rejects it: $output"
  local json=$output
  run jq -r '"\(.pid) \(.name) \(.library)"' <<<"$json"
  assert_output "$PROBE_PID sb-probe $LIBSOCKBOOST"
  # Four connected unix ends, each boosted, each with its peer: itself.
  run jq -r '.sockets[] | "\(.type) \(.state) \(.tb) \(.boosted) \(.peer.processes[0].pid)"' <<<"$json"
  assert_output "$(for i in 1 2 3 4; do echo "unix ESTAB $BOOSTED_TB true $PROBE_PID"; done)"
  run jq -r '[.sockets[].fds[]] | length' <<<"$json"
  assert_output 4
}

@test "the PID may come before or after --json" {
  start_probe "$BATS_TEST_TMPDIR/probe.sock"
  run "$SOCKBOOST" status "$PROBE_PID" --json
  assert_success
  jq -e ".pid == $PROBE_PID and .library == null and (.sockets | length) == 4" <<<"$output"
}

@test "status --json 1 is no usage error" {
  run --separate-stderr "$SOCKBOOST" status --json 1
  [ "$status" -ne 2 ] || fail "usage error: $stderr"
  [[ $stderr != *"expected one PID"* ]] || fail "$stderr"
  # Root may still be denied pid 1's descriptors (a container whose
  # init holds capabilities we lack): then status says so.
  if [ "$(id -u)" -eq 0 ] && ls -l /proc/1/fd >/dev/null 2>&1; then
    assert_success
    jq -e '.pid == 1' <<<"$output"
  elif [ "$(id -u)" -eq 0 ]; then
    assert_failure 1
    [[ $stderr == *"process 1: not permitted to inspect its sockets"* ]] || fail "$stderr"
  fi
}

@test "a process without sockets gives an empty list" {
  sleep 30 &
  kill_at_teardown $!
  run "$SOCKBOOST" status --json $!
  assert_success
  jq -e '.sockets == []' <<<"$output"
}
