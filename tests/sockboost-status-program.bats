#!/usr/bin/env bats
# sockboost status names the NBD program a process runs, by its
# executable, with the version it prints and what the library changes
# for it under that process's own SOCKBOOST_* settings (not status's).
bats_require_minimum_version 1.5.0
load helpers

# A copy of sleep named NAME: an "NBD program" that prints sleep's version.
fake_nbd_program () {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$(type -P sleep)" "$BATS_TEST_TMPDIR/bin/$1"
}

@test "the program's line follows the process's settings" {
  requires jq
  local version
  fake_nbd_program nbdkit
  version=$(sleep --version | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
  SOCKBOOST_SNDBUF=1M "$BATS_TEST_TMPDIR/bin/nbdkit" 30 &
  kill_at_teardown $!
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" status $!
  assert_success
  assert_line "  nbdkit $version: what the library changes for it"
  assert_line "    unix: raises the send buffer to tb 2097152: nbdkit leaves the default"
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" status --json $!
  jq -e --arg v "$version" '.program.name == "nbdkit" and .program.version == $v
        and (.program.unix | startswith("raises the send buffer to tb 2097152"))' <<<"$output"
}

@test "a process that runs no NBD program has no program line" {
  requires jq
  sleep 30 &
  kill_at_teardown $!
  run "$SOCKBOOST" status $!
  assert_success
  refute_output --partial "what the library changes"
  run "$SOCKBOOST" status --json $!
  [ "$(jq -r .program <<<"$output")" = null ]
}

# Start a fake nbdkit through WRAPPER... (none: as we are), asking twice
# wmem_max, which only forcing gets; set PREDICTED to the tb status says
# the library gives its unix sockets.
predict_tb () {
  local pid
  "$@" env SOCKBOOST_SNDBUF="$ASK" "$BATS_TEST_TMPDIR/bin/nbdkit" 30 >/dev/null 2>&1 &
  pid=$!
  kill_at_teardown "$pid"
  wait_for_exe "$pid" "$BATS_TEST_TMPDIR/bin/nbdkit" ||
    fail "the fake nbdkit did not start"
  PREDICTED=$("$SOCKBOOST" status "$pid" |
    sed -n 's/^    unix: raises the send buffer to tb \([0-9]*\):.*/\1/p')
}

# Set REAL to the tb the library really gives a socket pair in a program
# run through WRAPPER..., asking the same.
real_tb () {
  local out=$BATS_TEST_TMPDIR/out.$RANDOM
  start_bg "$out" "$@" env LD_PRELOAD="$(preload_value)" \
    SOCKBOOST_SNDBUF="$ASK" "$PRELOAD_SOCKETS" pair stream
  wait_for_line "$out" holding
  REAL=$(unix_tbs_wait "$BG_PID" 2 | head -n 1)
}

@test "the program's line follows the process's right to force, not status's" {
  requires ss setpriv
  skip_unless_cap_net_admin
  fake_nbd_program nbdkit
  ASK=$((2 * $(cat /proc/sys/net/core/wmem_max)))
  local forced clipped no_net_admin=(setpriv --inh-caps=-net_admin --bounding-set=-net_admin)
  real_tb
  forced=$REAL
  real_tb "${no_net_admin[@]}"
  clipped=$REAL
  [ "$forced" -gt "$clipped" ] || fail "forcing made no difference: $forced, $clipped"
  predict_tb
  assert_equal "$PREDICTED" "$forced"
  predict_tb "${no_net_admin[@]}"
  assert_equal "$PREDICTED" "$clipped"
  # Every capability in a user namespace of its own, but the network's
  # owner is ours: the kernel refuses SO_SNDBUFFORCE.
  unshare -U -r true 2>/dev/null || sb_skip "user namespaces are not available here"
  predict_tb unshare -U -r
  assert_equal "$PREDICTED" "$clipped"
  predict_tb unshare -U -r -n
  assert_equal "$PREDICTED" "$forced"
}
