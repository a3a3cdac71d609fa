#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode's counts cannot be flooded.  They are kept per filter entry
# (qemu-system-*, qemu-nbd...) and per user (the caller's uid, which a
# process cannot forge), not per process name: user nobody connecting
# 2,000 times under 2,000 names qemu-system-N fills one row of its own,
# (qemu-system-*, 65534), and changes no other user's.  A qemu-nbd of
# root's started after it is counted right, and status stays short, in
# text and in JSON.

load helpers

@test "host mode: 2,000 fake qemu-system names from nobody fill one row; root's qemu-nbd is counted" {
  hm_setup
  local script img=$BATS_TEST_TMPDIR/disk.img
  truncate -s 1M "$img"
  hm_enable >/dev/null
  hm_nobody_script script host-name-flood.py
  run hm_as_nobody "$HM_CGROUP" python3 "$script" qemu-system- 2000
  assert_success
  assert_output 2000
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  run hm_host status --json
  assert_success
  [ "$(jq '[.tuned[] | select(.program == "qemu-nbd") | .tcp_bind] | add' <<<"$output")" = 1 ] ||
    fail "qemu-nbd's listener, bound after the flood, was not counted once ($(jq '.tuned | length' <<<"$output") rows): $(jq -c '.tuned[:5]' <<<"$output")..."
  echo "counts after the flood: $(jq -c .tuned <<<"$output")" >&3
  [ "$(jq -c '[.tuned[] | [.program, .uid, .tcp_bind, .tcp_connect]]' <<<"$output")" = \
    '[["qemu-nbd",0,1,0],["qemu-system-*",65534,0,2000]]' ] ||
    fail "wanted one row for root's qemu-nbd, one for nobody's 2,000 connections ($(jq '.tuned | length' <<<"$output") rows): $(jq -c '.tuned[:5]' <<<"$output")..."
  run hm_host status
  assert_success
  # Its header, links, and each table (the tuned sockets, the stalls, the
  # processes) a row for root's and one for nobody's: no more.
  [ "${#lines[@]}" -le 30 ] || fail "status is ${#lines[@]} lines long: $output"
  assert_line --regexp '^  qemu-nbd +0 +1 +0 +0$'
  assert_line --regexp '^  qemu-system-\* +65534 +0 +2000 +0$'
}

@test "host mode: users who find the counts table full are counted as others; root's rows stay right" {
  hm_setup
  local img=$BATS_TEST_TMPDIR/disk.img
  truncate -s 1M "$img"
  hm_enable >/dev/null
  # 1,100 users, more than the table's 1,024 rows hold.
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-name-flood.py" \
    qemu-system- 1100 --uids 200000
  assert_success
  assert_output 1100
  hm_start_qemu_nbd_tcp "$HM_CGROUP" "$img"
  run hm_host status --json
  assert_success
  echo "rows: $(jq '.tuned | length' <<<"$output"), others: $(jq -c '[.tuned[] | select(.uid == null)]' <<<"$output")" >&3
  [ "$(jq -c '[.tuned[] | select(.program == "qemu-nbd") | {program, uid, tcp_bind, tcp_connect, unix}]' <<<"$output")" = \
    '[{"program":"qemu-nbd","uid":0,"tcp_bind":1,"tcp_connect":0,"unix":0}]' ] ||
    fail "root's qemu-nbd was not counted in its own row: $(jq -c '[.tuned[] | select(.program == "qemu-nbd")]' <<<"$output")"
  [ "$(jq '[.tuned[] | select(.program == "qemu-system-*") | .tcp_connect] | add' <<<"$output")" -eq 1100 ] ||
    fail "the 1,100 connections were not all counted"
  [ "$(jq '[.tuned[] | select(.program == "qemu-system-*" and .uid == null) | .tcp_connect] | add' <<<"$output")" -gt 0 ] ||
    fail "no connection was counted as the others'"
  run hm_host status
  assert_success
  assert_line "  (others: users who came after the table's 1024 rows were taken, counted together)"
  assert_line --regexp '^  qemu-system-\* +others +0 +[1-9][0-9]* +0$'
}
