#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The counting against an independent count of the same stalls.  One
# qemu-nbd 7.2 serves a fragmented sparse image over TCP in a network
# namespace of the test's own (helpers-qemu-tcp.bash: each stride of a
# qemu-img dd copy waits for the client's delayed ACK).  Observed
# (enable --observe: nothing tuned), the stalls counted for qemu-nbd are
# within 10% of the delayed ACKs the namespace sent meanwhile
# (TcpExtDelayedACKs: the receiver's count, this counting's is the
# sender's), and their time within 20% of what the tuning saves: the
# observed copy's wall time less the tuned copy's.  Then tuned (enable on
# the same cgroup, which gives the running qemu-nbd's listener
# TCP_NODELAY): almost no stall is counted.  The process's own row says
# the same as its program's.

load helpers

# The counting's figures for the program entry ENTRY in `host status
# --json` (OUTPUT): stalls stall_seconds connections, one line.
stall_figures () {
  jq -r --arg e "$1" '[.tuned[] | select(.program == $e)] |
    "\(map(.stalls) | add // 0) \(map(.stall_seconds) | add // 0) \(map(.connections) | add // 0)"' <<<"$2"
}

@test "host counting: qemu-nbd 7.2 stalls observed match the delayed ACKs; tuned, none" {
  requires qemu-img qemu-nbd jq
  qemu_at_least 8.0 && sb_skip "qemu-nbd $QEMU_VERSION sets TCP_NODELAY itself: no stall to count"
  hm_setup
  local img=$BATS_TEST_TMPDIR/sparse.img stalls seconds conns
  make_sparse_image "$img" 6
  qt_private_netns
  hm_enable --observe
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  local pid=$QEMU_TCP_PID port=$QEMU_TCP_PORT

  OBSERVED=()
  time_copy OBSERVED qt_netns "$img" "$port" "$BATS_TEST_TMPDIR/out.img" qemu_img_dd_tcp ||
    fail "the observed copy failed"
  run hm_host status --json
  assert_success
  local json=$output
  read -r stalls seconds conns < <(stall_figures qemu-nbd "$json")
  echo "observed: ${OBSERVED[0]} s, ${OBSERVED_ACKS[0]} delayed ACKs; counted $stalls stalls, $seconds s, $conns connections" >&3
  [ "$conns" -eq 1 ] || fail "wanted 1 connection counted, got $conns: $json"
  [ "${OBSERVED_ACKS[0]}" -ge 40 ] || fail "the copy made only ${OBSERVED_ACKS[0]} delayed ACKs: no stall to count"
  awk -v c="$stalls" -v a="${OBSERVED_ACKS[0]}" 'BEGIN { d = c - a; if (d < 0) d = -d; exit !(d <= 0.10 * a) }' ||
    fail "counted $stalls stalls, the namespace sent ${OBSERVED_ACKS[0]} delayed ACKs (10% apart at most)"
  # The process's row: the same figures, under its pid.
  [ "$(jq --argjson p "$pid" '[.processes[] | select(.pid == $p and .program == "qemu-nbd")] | .[0].stalls' <<<"$json")" = "$stalls" ] ||
    fail "qemu-nbd $pid has no row of its own with $stalls stalls: $json"
  [ "$(jq -c "[.observe, .tcp_nodelay, .tcp_by]" <<<"$json")" = "[true,false,null]" ] || fail "status does not say it observes, setting nothing: $json"
  # doctor says it in one line, and what removes them.
  local ns_problem
  ns_problem=$(mount_ns_problem)
  if [ -z "$ns_problem" ]; then
    run hm_with_default_pins "$SOCKBOOST" doctor
    grep 'NBD stalls' <<<"$output" >&3 || true
    assert_line --regexp "^  NBD stalls +qemu-nbd( [0-9.]+)?: $stalls stalls, [0-9.]+ s lost since [0-9:]+; 'sockboost host enable' removes them$"
  fi

  hm_enable
  TUNED=()
  time_copy TUNED qt_netns "$img" "$port" "$BATS_TEST_TMPDIR/out.img" qemu_img_dd_tcp ||
    fail "the tuned copy failed"
  run hm_host status --json
  assert_success
  local after_stalls after_seconds after_conns
  read -r after_stalls after_seconds after_conns < <(stall_figures qemu-nbd "$output")
  echo "tuned: ${TUNED[0]} s, ${TUNED_ACKS[0]} delayed ACKs; counted $((after_stalls - stalls)) stalls" >&3
  [ "$after_conns" -eq 2 ] || fail "the counts did not carry over the enable: $output"
  [ $((after_stalls - stalls)) -le 2 ] ||
    fail "tuned, $((after_stalls - stalls)) stalls were counted ($output)"
  # Their time: what the tuning saved, within 20%.
  awk -v s="$seconds" -v o="${OBSERVED[0]}" -v t="${TUNED[0]}" \
    'BEGIN { saved = o - t; d = s - saved; if (d < 0) d = -d; exit !(saved > 0 && d <= 0.20 * saved) }' ||
    fail "counted $seconds s of stalls; the tuning saved ${OBSERVED[0]} - ${TUNED[0]} s (20% apart at most)"
}
