#!/usr/bin/env bats
# sbnbd-client asks for extended headers by default and sbnbd-server
# agrees: reads, writes, verify and map work over them; --no-extended
# gives structured replies, --no-structured neither; a server without
# them (qemu-nbd 7.2) gets structured replies.
# bats file_tags=sanitize

load helpers

@test "info: extended headers with sbnbd-server, not with --no-extended" {
  start_sbnbd_unix -v memory:64M
  run cl_client info "$NBD_URI"
  assert_line "extended headers: yes"
  assert_line "base:allocation: yes"
  run cl_client --no-extended info "$NBD_URI"
  assert_line "extended headers: no"
  assert_line "structured replies: yes"
  run cl_client --no-structured info "$NBD_URI"
  assert_line "extended headers: no"
  assert_line "structured replies: no"
  assert_line "base:allocation: no"
  grep -q 'transmission (extended headers, base:allocation selected)' "$NBD_LOG"
  grep -q 'transmission (structured replies, base:allocation selected)' "$NBD_LOG"
  grep -q 'transmission (simple replies, base:allocation not selected)' "$NBD_LOG"
}

@test "write, verify, read and map over extended headers" {
  start_sbnbd_unix -v memory:64M
  run cl_client --json --flush --length 40M write pattern "$NBD_URI"
  assert_success
  assert_output --partial '"extended_headers": true'
  run cl_client verify --length 40M "$NBD_URI"
  assert_success
  run cl_client map "$NBD_URI"
  assert_output "         0    41943040    0  data
  41943040    25165824    3  hole,zero"
  cl_client -q read "$NBD_URI" "$BATS_TEST_TMPDIR/out"
  cmp -n $((40 << 20)) "$BATS_TEST_TMPDIR/out" <(cl_client -q --no-extended read "$NBD_URI" -)
  ! grep -q 'bad request magic' "$NBD_LOG"
  grep -q 'client sent NBD_CMD_DISC' "$NBD_LOG"
}

@test "qemu-nbd: extended headers from QEMU 9 on, structured replies before" {
  requires qemu-nbd
  local major want=no
  major=$(qemu-nbd --version | sed -n '1s/^qemu-nbd \([0-9]*\)\..*/\1/p')
  [ "$major" -lt 9 ] || want=yes
  truncate -s 16M "$BATS_TEST_TMPDIR/disk"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/q" "$BATS_TEST_TMPDIR/disk" -r
  run cl_client info "$(cl_unix_uri "$BATS_TEST_TMPDIR/q")"
  assert_line "extended headers: $want"
  assert_line "structured replies: yes"
  assert_line "base:allocation: yes"
  run cl_client map "$(cl_unix_uri "$BATS_TEST_TMPDIR/q")"
  # A hole of a raw file: "zero" alone before QEMU 6.0 (as_qemu_nbd_reports).
  assert_output "$(as_qemu_nbd_reports <<<"         0    16777216    3  hole,zero")"
}
