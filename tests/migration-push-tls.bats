#!/usr/bin/env bats
# Storage migration between two QEMU system emulators over TLS (both
# with tls-creds-x509 objects, certificates made for the test): the
# source mirrors a fragmented image into the destination's writable
# export.  With QEMU 7.2 the TLS records of the destination's replies
# wait for delayed ACKs as plain TCP segments do: with both QEMUs under
# the library the mirror is at least 2x faster, and the copy is
# identical.  QEMU 8.0 and later (make check-compat): no slower.

load helpers

@test "push mirror between QEMUs over TLS, fragmented image: >= 2x with the library (before 8.0), identical" {
  local img=$BATS_TEST_TMPDIR/fragmented.img pki=$BATS_TEST_TMPDIR/pki
  make_tls_certs "$pki"
  # 768 data/hole boundaries: about 3 s plain with QEMU 7.2.
  make_sparse_image "$img" 96
  migration_rounds "$(tcp_rounds 2)" push "$img" "$pki"
  echo "push over TLS: $(times_and_acks PLAIN_TIMES) plain, $(times_and_acks BOOSTED_TIMES) with the library" >&3
  # The stall is a floor no round beats; load only ever adds time.
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 2
}
