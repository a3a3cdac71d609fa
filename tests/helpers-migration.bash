# SPDX-License-Identifier: MIT
# Disk transfers between two QEMU system emulators over NBD, driven over
# QMP as libvirt drives them (sourced by helpers.bash):
#
#   migration_rounds ROUNDS DIRECTION IMAGE [TLS_DIR]
#       ROUNDS interleaved transfers of IMAGE, plain then with both QEMUs
#       under the library; each copy compared with qemu-img compare; sets
#       PLAIN_TIMES and BOOSTED_TIMES to their seconds
#
# DIRECTION: push (storage migration: the destination exports its disk
# writable, the source mirrors into it), pull-convert (backup pull:
# qemu-img convert from the source's read-only export), pull-mirror (the
# same pulled by another QEMU's mirror job).  The transfers run through
# tests/migration-run.py, the benchmark's own code.  QEMU before 8.0
# leaves Nagle on for the NBD connections it accepts, as qemu-nbd does
# (helpers-qemu-tcp.bash): its replies wait for delayed ACKs.

# Longest a single transfer may take (a bound on a hang, not the speed).
MIGRATION_TIMEOUT=${MIGRATION_TIMEOUT:-120}

# One transfer of IMAGE into OUT; its seconds into the variable named VAR.
# With a LOGDIR, both QEMUs run under the library and log into it.
migration_once () {
  local -n mig_seconds=$1
  local direction=$2 image=$3 out=$4 tls=$5 logdir=$6 args=()
  [ -z "$tls" ] || args+=(--tls "$tls")
  [ -z "$logdir" ] || args+=(--library "$logdir")
  # fd 3 is bats' own: a QEMU holding it would stall the test run.
  mig_seconds=$(timeout "$MIGRATION_TIMEOUT" python3 \
    "$SB_TESTS_DIR/migration-run.py" ${args[@]+"${args[@]}"} \
    "$direction" "$image" "$out" 3>&-) ||
    fail "$direction of $image failed"
  # Checked here too, from outside the code under test.
  qemu-img compare -q "$image" "$out" ||
    fail "$direction: the copy differs from $image"
}

migration_rounds () {
  local rounds=$1 direction=$2 image=$3 tls=${4:-} round t
  local logs=$BATS_TEST_TMPDIR/library-logs out=$BATS_TEST_TMPDIR/copy.img
  requires qemu-system-x86_64 qemu-img python3 timeout
  mkdir -p "$logs"
  PLAIN_TIMES=() BOOSTED_TIMES=()
  for ((round = 0; round < rounds; round++)); do
    migration_once t "$direction" "$image" "$out" "$tls" ""
    PLAIN_TIMES+=("$t")
    migration_once t "$direction" "$image" "$out" "$tls" "$logs"
    BOOSTED_TIMES+=("$t")
  done
  # The library was in the QEMU that serves the export and tuned the
  # connection it accepted.
  grep -hqE '^sockboost\[qemu-system-x86_64 [0-9]+\]: fd [0-9]+ tcp accept nodelay' \
    "$logs"/sb-*.log || fail "the library tuned no accepted TCP socket in QEMU"
}
