#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# In a plain chroot, whose / is not a mount point (pbuilder-style
# builders run make check so), unshare --propagation private fails; the
# tests that need a private mount namespace make one through
# tests/helpers-namespaces.bash (a private bind of the root) and pass, and
# sockboost bench --root says what is wrong instead of unshare's raw error.
# The chroot here is made of this machine's own /usr and /var, bind-mounted
# read-only into an empty directory, and a copy of its /etc (a plain
# directory there, as in a real chroot), entered as the compat chroots are
# (tests/compat/enter: private mount and pid namespaces).
bats_require_minimum_version 1.5.0
load helpers

setup () {
  [ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mount namespaces)"
  requires unshare chroot findmnt mountpoint
  ROOT=$BATS_TEST_TMPDIR/root
  mkdir -p "$ROOT"/{usr,var,root,tmp,proc,sys,dev,run} "$BATS_TEST_TMPDIR/tmp"
  chmod 1777 "$BATS_TEST_TMPDIR/tmp"
  cp -a /etc "$ROOT/etc"
  BINDS=(--bind /usr --bind /var --bind "$SB_ROOT")
  case $SB_BUILD/ in "$SB_ROOT"/*) ;; *) BINDS+=(--bind "$SB_BUILD") ;; esac
  local d
  for d in bin sbin lib lib32 lib64 libx32; do
    if [ -L "/$d" ]; then
      ln -s "$(readlink "/$d")" "$ROOT/$d"
    elif [ -d "/$d" ]; then
      mkdir "$ROOT/$d" && BINDS+=(--bind "/$d")
    fi
  done
}

# Run bash -c SCRIPT in the chroot, as a test there would run.
in_chroot () {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
    SB_ROOT="$SB_ROOT" SB_BUILD="$SB_BUILD" \
    unshare --mount --pid --fork --propagation private -- \
    "$SB_ROOT/tests/compat/enter" --tmp "$BATS_TEST_TMPDIR/tmp" "${BINDS[@]}" "$ROOT" -- \
    /bin/bash -c "cd \"\$SB_ROOT\" && $1"
}

@test "in a chroot, private_mount_ns makes a private mount namespace where unshare cannot" {
  run in_chroot '
    set -u
    unshare --mount --propagation private true
    echo "unshare: $?"
    . tests/helpers-namespaces.bash
    echo "problem: $(mount_ns_problem)"
    private_mount_ns sh -c "mount -t tmpfs none /root && findmnt -n -o PROPAGATION / &&
      findmnt -n -o FSTYPE /root"
    echo "private_mount_ns: $?"
    mountpoint -q /root && echo "leaked: /root is still mounted"
    ls /tmp'
  assert_line "unshare: cannot change root filesystem propagation: Invalid argument"
  assert_line "unshare: 1"
  assert_line "problem: "
  assert_line "private"
  assert_line "tmpfs"
  assert_line "private_mount_ns: 0"
  refute_output --partial "leaked"
  # The directory the root was bound on is gone again.
  refute_output --partial "sb-root."
}

@test "in a chroot, sockboost bench --root says that / must be a mount point" {
  mkdir -p "$BATS_TEST_TMPDIR/tmp/other/usr/bin"
  run in_chroot 'tools/sockboost bench --quick --workloads qemu --root /tmp/other --out /tmp/out'
  assert_failure
  refute_output --partial "cannot change root filesystem propagation"
  assert_output --partial "--root needs / to be a mount point"
}

@test "in a chroot, the tests that make mount namespaces pass, none skipped" {
  local files=(tests/bench-root.bats tests/preload-secure-execution.bats
               tests/sockboost-run-privileged.bats) count
  count=$(cd "$SB_ROOT" && cat "${files[@]}" | grep -c '^@test ')
  run in_chroot "TMPDIR=/tmp bats --tap ${files[*]}"
  assert_success
  refute_output --regexp '^not ok|# skip'
  assert_equal "$(grep -c '^ok ' <<<"$output")" "$count"
}
