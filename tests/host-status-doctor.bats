#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost status PID tells a socket host mode tuned from one the library
# tuned: host mode's from the mark its programs left (sockboost host
# status PID: "yes (host mode)"), the library's from a boost in a process
# that maps it (tuned_by in JSON).
# sockboost doctor says whether host mode is on and whether it can run
# here.  Both read host mode's pins at /sys/fs/bpf/sockboost: here the
# test's own BPF file system, bound there in a private mount namespace.

load helpers

# The tuned_by of PID's established unix socket, from sockboost status --json.
tuned_by () {
  hm_with_default_pins "$SOCKBOOST" status --json "$1" |
    jq -c '[.sockets[] | select(.type == "unix" and .state == "ESTAB") | .tuned_by]'
}

# A qemu-nbd serving on unix socket SOCK, and a qemu-io connected to it,
# both run by PREFIX... (a cgroup, or sockboost run); sets SERVER.
serve_and_connect () {
  local sock=$1
  shift
  (exec "$@" qemu-nbd -r -t -f raw -k "$sock" "$BATS_TEST_TMPDIR/disk.img") 3>&- &
  SERVER=$!
  kill_at_teardown "$SERVER"
  wait_for_socket "$sock"
  (exec "$@" qemu-io -r -f raw -c 'sleep 20000' "nbd+unix:///?socket=$sock") 3>&- &
  kill_at_teardown $!
  cl_wait_for_connection "$SERVER"
}

@test "status PID: a socket tuned by host mode, one tuned by the library" {
  requires qemu-nbd qemu-io jq
  hm_setup
  local ns_problem
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  hm_enable | grep -q '^  unix: send buffer' ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later)"
  truncate -s 1M "$BATS_TEST_TMPDIR/disk.img"
  serve_and_connect "$BATS_TEST_TMPDIR/host.sock" "${HM_IN_CGROUP[@]}" "$HM_CGROUP"
  local host_server=$SERVER
  serve_and_connect "$BATS_TEST_TMPDIR/library.sock" "$SOCKBOOST" run --
  local library_server=$SERVER
  run tuned_by "$host_server"
  assert_output '[["host mode"]]'
  run tuned_by "$library_server"
  assert_output '[["library"]]'
  run hm_with_default_pins "$SOCKBOOST" status "$host_server"
  assert_line "  host mode: tuned 1 of its sockets"
  assert_line --regexp "^  [0-9]+ +unix +ESTAB +$BOOSTED_TB +yes \(host mode\) "
  run hm_with_default_pins "$SOCKBOOST" status "$library_server"
  assert_line --regexp "^  [0-9]+ +unix +ESTAB +$BOOSTED_TB +yes +qemu-io "
}

@test "doctor: host mode on, and can run here" {
  hm_setup
  local ns_problem
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  run hm_with_default_pins "$SOCKBOOST" doctor --json
  [ "$(jq -c '[.host_mode.state.on, .host_mode.check.can_run, .host_mode.check.tcp]' <<<"$output")" = "[false,true,true]" ] ||
    fail "wanted host mode off and able to run: $output"
  hm_enable >/dev/null
  run hm_with_default_pins "$SOCKBOOST" doctor
  assert_line --regexp "^  host mode +on since .*, cgroup $HM_CGROUP, filter programs nbd-client, "
  assert_line --regexp "^  host mode can run +yes: TCP_NODELAY"
}
