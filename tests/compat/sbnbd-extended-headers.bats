#!/usr/bin/env bats
# Extended headers between our pair and independent implementations
# (libnbd 1.18+, QEMU 9+ speak them; Debian 12's do not, so this runs
# only in make check-compat): nbdinfo sees them negotiated with
# sbnbd-server, nbdcopy and qemu-img copies through them are identical,
# nbdinfo --map is what it is through qemu-nbd, and sbnbd-client
# negotiates them with qemu-nbd and reads, writes and maps through them.
# Each assertion follows the versions found, both ways.

load ../helpers

setup () {
  requires nbdinfo nbdcopy qemu-nbd qemu-img python3 cmp
  read_versions
  LIBNBD_EXT=false QEMU_EXT=no
  if libnbd_at_least 1.18; then LIBNBD_EXT=true; fi
  if qemu_at_least 9.0; then QEMU_EXT=yes; fi
  DISK=$BATS_TEST_TMPDIR/disk
  truncate -s 64M "$DISK"
  for at in 1 20 63; do
    head -c 512K /dev/urandom | dd of="$DISK" bs=1M seek=$at conv=notrunc status=none
  done
}

@test "nbdinfo --json: extended headers and base:allocation with sbnbd-server" {
  start_sbnbd_unix -v -r "$DISK"
  nbdinfo --json "$NBD_URI" > "$BATS_TEST_TMPDIR/info.json"
  run python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
print(o.get("extended", False), o["exports"][0]["contexts"])' "$BATS_TEST_TMPDIR/info.json"
  assert_output "$([ "$LIBNBD_EXT" = true ] && echo True || echo False) ['base:allocation']"
  if [ "$LIBNBD_EXT" = true ]; then
    grep -q 'transmission (extended headers' "$NBD_LOG"
  fi
}

@test "nbdcopy through extended headers: sparse copies out and in are identical" {
  start_sbnbd_unix -r "$DISK"
  local from=$NBD_URI
  nbdcopy "$from" "$BATS_TEST_TMPDIR/copy"
  cmp "$DISK" "$BATS_TEST_TMPDIR/copy"
  [ "$(du -k "$BATS_TEST_TMPDIR/copy" | cut -f1)" -le 4096 ]
  start_sbnbd_unix -v memory:64M
  nbdcopy "$DISK" "$NBD_URI"
  cl_client -q read "$NBD_URI" "$BATS_TEST_TMPDIR/back"
  cmp "$DISK" "$BATS_TEST_TMPDIR/back"
  ! grep -q 'bad request magic\|error' "$NBD_LOG"
}

@test "nbdinfo --map and qemu-img map: the same through sbnbd-server as through qemu-nbd" {
  start_sbnbd_unix -r "$DISK"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/q" "$DISK" -r
  local qemu
  qemu=$(cl_unix_uri "$BATS_TEST_TMPDIR/q")
  nbdinfo --map "$qemu" > "$BATS_TEST_TMPDIR/want"
  run nbdinfo --map "$NBD_URI"
  run as_qemu_nbd_reports <<<"$output"
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
  qemu-img map --output=json -f raw "$qemu" > "$BATS_TEST_TMPDIR/want"
  run qemu-img map --output=json -f raw "$NBD_URI"
  run as_qemu_nbd_reports <<<"$output"
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
  qemu-img convert -f raw -O raw "$NBD_URI" "$BATS_TEST_TMPDIR/converted"
  cmp "$DISK" "$BATS_TEST_TMPDIR/converted"
}

@test "sbnbd-client with qemu-nbd: extended headers by version; read, map, write intact" {
  cp --sparse=always "$DISK" "$BATS_TEST_TMPDIR/rw"
  cl_start_qemu_nbd "$BATS_TEST_TMPDIR/q" "$BATS_TEST_TMPDIR/rw"
  local uri
  uri=$(cl_unix_uri "$BATS_TEST_TMPDIR/q")
  run cl_client info "$uri"
  assert_line "extended headers: $QEMU_EXT"
  assert_line "base:allocation: yes"
  cl_client -q read "$uri" "$BATS_TEST_TMPDIR/out"
  cmp "$DISK" "$BATS_TEST_TMPDIR/out"
  nbdinfo --map "$uri" | nbdinfo_map_words > "$BATS_TEST_TMPDIR/want"
  run cl_client map "$uri"
  assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
  run cl_client --json --flush --offset 8M --length 4M write pattern "$uri"
  assert_success
  assert_output --partial "\"extended_headers\": $([ "$QEMU_EXT" = yes ] && echo true || echo false)"
  run cl_client verify --offset 8M --length 4M "$uri"
  assert_success
}
