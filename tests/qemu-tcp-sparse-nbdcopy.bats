#!/usr/bin/env bats
# nbdcopy (libnbd) from qemu-nbd 7.2 over TCP serving a fragmented sparse
# image is faster with the server under `sockboost run`, and the copy is
# identical.  libnbd keeps many requests in flight, which hides most
# stalls of the data phase; what is left to gain is mostly the option
# replies of the handshake, each of which waits for a delayed ACK with
# Nagle on (about 0.1 s against 0.03 s here).  So the rounds are
# interleaved and the fastest of each side compared: load on a shared
# machine made single boosted copies take 0.1-0.2 s, and medians of 3
# failed the bound in 2 of 5 runs.
# qemu-nbd 8.0 and later (make check-compat) have no stall: the library
# must add none.

load helpers

@test "nbdcopy from qemu-nbd over TCP, sparse image: faster boosted (before 8.0), identical" {
  requires cmp
  local img=$BATS_TEST_TMPDIR/sparse.img
  make_sparse_image "$img" 12
  start_qemu_nbd_tcp "$img"
  local plain_port=$QEMU_TCP_PORT
  start_qemu_nbd_tcp --boosted "$img"
  local boosted_port=$QEMU_TCP_PORT
  time_copies "$(tcp_rounds 5)" "$img" "$plain_port" "$boosted_port" nbdcopy_tcp
  echo "nbdcopy: ${PLAIN_TIMES[*]} s plain, ${BOOSTED_TIMES[*]} s boosted" >&3
  assert_tcp_gain "$(fastest_of "${PLAIN_TIMES[@]}")" "$(fastest_of "${BOOSTED_TIMES[@]}")" 1.5
}
