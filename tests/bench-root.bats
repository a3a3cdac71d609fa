#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sockboost bench --root DIR runs the qemu workload a second time with
# the NBD programs of the root file system DIR, as configurations
# LABEL:CONFIG beside this machine's, and reports them side by side.
# The root here is this machine's own /usr seen through a bind mount (a
# make check-compat chroot would hold newer programs), so the run shows
# the mechanism: programs run under chroot with the data, sockets and
# library reachable, the library tunes their sockets, and nothing stays
# mounted afterwards.  Bad roots are usage errors.

load helpers
bats_require_minimum_version 1.5.0

setup () {
  requires qemu-nbd qemu-img unshare
  FAKE=$BATS_TEST_TMPDIR/fakeroot
  mkdir -p "$FAKE"/usr "$FAKE"/etc
  for d in bin sbin lib lib64; do
    if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$FAKE/$d"; fi
  done
}

@test "bench --root: the root's qemu-nbd and qemu-img run beside this machine's, tuned, and nothing stays mounted" {
  [ "$(id -u)" -eq 0 ] || skip "--root needs root, which this process is not"
  local out=$BATS_TEST_TMPDIR/out problem
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  # The bind mount of /usr lives in a namespace of its own: the bench
  # makes another one inside it for the mounts it needs (in a chroot,
  # both in a private bind of the root: tests/helpers-namespaces.bash).
  run --separate-stderr private_mount_ns sh -c '
    mount --bind /usr "$1/usr" && mount --bind /etc "$1/etc" && shift &&
    exec "$@"' sh "$FAKE" "$SB_ROOT/tools/bench" --quick --workloads qemu \
    --sizes default,2M --root "mine=$FAKE" --out "$out"
  echo "$stderr" | tail -n 5
  assert_success
  run cat "$out/results.md"
  assert_line --regexp '^\| mine:default \| [0-9.]+ \|'
  assert_line --regexp '^\| mine:2M \| [0-9.]+ \|'
  assert_line --regexp '^- mine: qemu-nbd [0-9]'
  assert_line --regexp '^\| qemu-img convert from qemu-nbd \| mine \| [0-9.]+ \| [0-9.]+ \|'
  # The library was in the root's programs: it logged their sockets.
  run awk -F, '$3 == "mine:2M" && $14 > 0 { n++ } END { print n + 0 }' "$out/runs.csv"
  assert_output 2
  run grep -c ',mine:' "$out/runs.csv"
  assert_output 4
  run grep -F " $FAKE/" /proc/self/mountinfo
  assert_failure
}

@test "bench --root: a directory that is not a root file system is a usage error" {
  run --separate-stderr "$SB_ROOT/tools/bench" --root "$BATS_TEST_TMPDIR" \
    --out "$BATS_TEST_TMPDIR/out"
  assert_equal "$status" 2
  [[ $stderr == *"is not a root file system"* ]] || fail "stderr: $stderr"
  [ ! -e "$BATS_TEST_TMPDIR/out" ]
}

@test "bench --root: two roots with the same label are a usage error" {
  mkdir -p "$BATS_TEST_TMPDIR/a/x/usr/bin" "$BATS_TEST_TMPDIR/b/x/usr/bin"
  run --separate-stderr "$SB_ROOT/tools/bench" --root "$BATS_TEST_TMPDIR/a/x" \
    --root "$BATS_TEST_TMPDIR/b/x" --out "$BATS_TEST_TMPDIR/out"
  assert_equal "$status" 2
  [[ $stderr == *"labelled alike"* ]] || fail "stderr: $stderr"
}

@test "bench --root: a root without qemu-nbd skips the qemu workload, naming it" {
  [ "$(id -u)" -eq 0 ] || skip "--root needs root, which this process is not"
  local problem
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  mkdir -p "$BATS_TEST_TMPDIR/empty/usr/bin"
  # In a chroot, where / must be a mount point first.
  run --separate-stderr with_root_mount "$SB_ROOT/tools/bench" --quick --workloads qemu \
    --root "$BATS_TEST_TMPDIR/empty" --out "$BATS_TEST_TMPDIR/out"
  assert_success
  [[ $stderr == *"qemu skipped: qemu-nbd, qemu-img are not installed in $BATS_TEST_TMPDIR/empty"* ]] ||
    fail "stderr: $stderr"
}
