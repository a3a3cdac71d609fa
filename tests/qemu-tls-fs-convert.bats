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
  local pki=$BATS_TEST_TMPDIR/pki img=$BATS_TEST_TMPDIR/fs.qcow2 round t plain=() boosted=()
  make_tls_certs "$pki"
  make_fs_image "$img" 256 16
  start_qemu_nbd_tcp --tls "$pki" --format qcow2 "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted --tls "$pki" --format qcow2 "$img"
  local boosted_port=$QEMU_TCP_PORT
  for ((round = 0; round < $(tcp_rounds); round++)); do
    time_command t qemu_img_copy_tcp "$plain_port" "$BATS_TEST_TMPDIR/plain.img" "$pki"
    cmp "$img.raw" "$BATS_TEST_TMPDIR/plain.img"
    plain+=("$t")
    time_command t qemu_img_copy_tcp "$boosted_port" "$BATS_TEST_TMPDIR/boosted.img" "$pki"
    cmp "$img.raw" "$BATS_TEST_TMPDIR/boosted.img"
    boosted+=("$t")
  done
  echo "qemu-img convert over TLS: ${plain[*]} s plain, ${boosted[*]} s boosted" >&3
  assert_tcp_gain "$(median_of "${plain[@]}")" "$(median_of "${boosted[@]}")" 2
}
