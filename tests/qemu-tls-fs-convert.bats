#!/usr/bin/env bats
# qemu-nbd 7.2 over TLS serving a qcow2 image of an ext4 file system
# (mkfs.ext4 -d, no mount): with the server under `sockboost run`,
# qemu-img convert copies it at least 2x faster than plain (TLS records
# of a reply wait for delayed ACKs with Nagle on), and the copy is
# identical.  qemu-nbd 8.0 and later (make check-compat) have no stall:
# the library must add none.

load helpers

@test "qemu-img convert from qemu-nbd over TLS, ext4 qcow2 image: >= 2x boosted (before 8.0), identical" {
  requires qemu-img cmp
  local pki=$BATS_TEST_TMPDIR/pki img=$BATS_TEST_TMPDIR/fs.qcow2
  make_tls_certs "$pki"
  make_fs_image "$img" 256 16
  start_qemu_nbd_tcp --tls "$pki" --format qcow2 "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted --tls "$pki" --format qcow2 "$img"
  local boosted_port=$QEMU_TCP_PORT
  time_copies "$(tcp_rounds)" "$img.raw" "$plain_port" "$boosted_port" qemu_img_copy_tcp "$pki"
  echo "qemu-img convert over TLS: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s boosted" >&3
  assert_tcp_gain "$(median_of "${PLAIN_TIMES[@]}")" "$(median_of "${BOOSTED_TIMES[@]}")" 2
}
