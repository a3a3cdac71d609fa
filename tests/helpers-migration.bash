# SPDX-License-Identifier: MIT
# Disk transfers between two QEMU system emulators over NBD, driven over
# QMP as libvirt drives them (sourced by helpers.bash):
#
#   migration_rounds ROUNDS DIRECTION IMAGE [TLS_DIR]
#       ROUNDS interleaved transfers of IMAGE, plain then with both QEMUs
#       under the library; each copy compared with qemu-img compare; sets
#       PLAIN_TIMES and BOOSTED_TIMES to their seconds, PLAIN_TIMES_ACKS
#       and BOOSTED_TIMES_ACKS to the delayed ACKs each took
#   migration_once VAR DIRECTION IMAGE OUT TLS_DIR LOGDIR [PREFIX...]
#       one of them (below)
#   migration_copy_path VAR     where a test's transfers write their copy
#
# DIRECTION: push (storage migration: the destination exports its disk
# writable, the source mirrors into it), pull-convert and pull-dd
# (backup pull: qemu-img convert, or qemu-img dd a stride a READ, from
# the source's read-only export), pull-mirror (the same pulled by another
# QEMU's mirror job).  The transfers run through tests/migration-run.py,
# the benchmark's own code.  QEMU before 8.0 leaves Nagle on for the NBD
# connections it accepts, as qemu-nbd does (helpers-qemu-tcp.bash): its
# replies wait for delayed ACKs.
#
# How many wait, transfer to transfer, measured in each transfer's own
# network namespace (QEMU 7.2, 2 cores, idle / a spinner on the other):
#  - pull-dd: one per stride, always (66 of 66 for 64 strides, 10 of 10
#    pulls), as qemu-img dd from qemu-nbd;
#  - pull-convert: a race between the READ and the BLOCK_STATUS in
#    flight (47-65 of 66 idle, 13-50 with the spinner); over TLS every
#    reply waits whatever the client has in flight (66-67, 8 of 8);
#  - pull-mirror: 64-66 of 66, 10 of 10;
#  - push: a race.  The mirror keeps 16 requests in flight, a MiB of a
#    fragmented image, then waits for its oldest, whose WRITE the source
#    sends last; a stall is the destination answering another request
#    between that WRITE's arrival and its reply, which then waits for
#    the ACK of the first.  Thread pool timing decides: 81-96 of 96
#    MiB idle, 38-95 with the spinner (over TLS 87-100).
#    Medians of interleaved rounds compare them.

# Longest a single transfer may take (a bound on a hang, not the speed).
MIGRATION_TIMEOUT=${MIGRATION_TIMEOUT:-120}

# Set the variable named VAR to the path a test's transfers write their
# copy to: on tmpfs (/dev/shm) where there is one, removed at teardown,
# so that the destination's writes and flush cost no disk time (on this
# VM's ext4, mounted with discard, they made pushes 0.29-0.60 s instead
# of 0.18-0.35 s, plain and boosted alike).
migration_copy_path () {
  local -n mig_path=$1
  local dir=$BATS_TEST_TMPDIR
  if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
      dir=$(mktemp -d /dev/shm/sockboost-migration.XXXXXX); then
    cleanup_push "rm -rf '$dir'"
  fi
  mig_path=$dir/copy.img
}

# One transfer of IMAGE into OUT, in a network namespace of its own (so
# that the delayed ACKs counted there are the transfer's alone); its
# seconds appended to the array named VAR, its delayed ACKs to VAR_ACKS.
# With a LOGDIR, both QEMUs run under the library and log into it.  A
# PREFIX (a command that execs its arguments) runs the whole transfer.
migration_once () {
  local -n mig_times=$1 mig_acks=${1}_ACKS
  local direction=$2 image=$3 out=$4 tls=$5 logdir=$6 args=() result
  shift 6
  [ -z "$tls" ] || args+=(--tls "$tls")
  [ -z "$logdir" ] || args+=(--library "$logdir")
  # fd 3 is bats' own: a QEMU holding it would stall the test run.
  result=$(timeout "$MIGRATION_TIMEOUT" "$@" unshare -n -- bash -c \
    "$(declare -f delayed_acks)"'
    ip link set lo up && "$@" && delayed_acks' migration-netns \
    python3 "$SB_TESTS_DIR/migration-run.py" ${args[@]+"${args[@]}"} \
    "$direction" "$image" "$out" 3>&-) ||
    fail "$direction of $image failed"
  # Checked here too, from outside the code under test.
  qemu-img compare -q "$image" "$out" ||
    fail "$direction: the copy differs from $image"
  mig_times+=("${result%%$'\n'*}")
  mig_acks+=("${result##*$'\n'}")
}

migration_rounds () {
  local rounds=$1 direction=$2 image=$3 tls=${4:-} round out
  local logs=$BATS_TEST_TMPDIR/library-logs
  requires qemu-system-x86_64 qemu-img python3 timeout unshare ip
  mkdir -p "$logs"
  migration_copy_path out
  PLAIN_TIMES=() BOOSTED_TIMES=() PLAIN_TIMES_ACKS=() BOOSTED_TIMES_ACKS=()
  for ((round = 0; round < rounds; round++)); do
    migration_once PLAIN_TIMES "$direction" "$image" "$out" "$tls" ""
    migration_once BOOSTED_TIMES "$direction" "$image" "$out" "$tls" "$logs"
  done
  # The library was in the QEMU that serves the export and tuned the
  # connection it accepted.
  grep -hqE '^sockboost\[qemu-system-x86_64 [0-9]+\]: fd [0-9]+ tcp accept nodelay' \
    "$logs"/sb-*.log || fail "the library tuned no accepted TCP socket in QEMU"
}
