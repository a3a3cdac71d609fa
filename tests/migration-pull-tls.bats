#!/usr/bin/env bats
# Backup pull from a running QEMU over TLS: the QEMU exports its disk
# read-only with a tls-creds-x509 object (certificates made for the
# test) and qemu-img convert copies a fragmented image from it.  With
# QEMU 7.2 every data/hole boundary of a reply waits for delayed ACKs,
# longer than over plain TCP: with the QEMU under the library (qemu-img
# as it is) the copy is at least 2x faster, and identical.  QEMU 8.0 and
# later (make check-compat): no slower.

load helpers

@test "backup pull from a QEMU's export over TLS, qemu-img convert of a fragmented image: >= 2x with the library (before 8.0), identical" {
  local img=$BATS_TEST_TMPDIR/fragmented.img pki=$BATS_TEST_TMPDIR/pki
  make_tls_certs "$pki"
  # 16 data/hole boundaries: about 3 s plain with QEMU 7.2.
  make_sparse_image "$img" 2
  migration_rounds "$(tcp_rounds 2)" pull-convert "$img" "$pki"
  echo "pull over TLS: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with the library" >&3
  # The stall is a floor no round beats; load only ever adds time.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 2
}
