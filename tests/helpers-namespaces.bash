# SPDX-License-Identifier: MIT
# Private mount namespaces, also in a chroot (sourced by helpers.bash).
#
# unshare --mount --propagation private makes every mount of the new
# namespace private, so that nothing mounted there reaches the host:
# it changes the propagation of "/", which the kernel refuses (EINVAL:
# "cannot change root filesystem propagation") where "/" is not a mount
# point, as in a plain chroot, the way pbuilder-style builders run the
# tests.  There, the root is bind-mounted (with everything below it) onto
# an empty directory of a mount this process can see, in a new mount
# namespace where that mount was first made private, so the bind reaches
# no one else; the command then runs chrooted into the bind, whose "/" is
# a mount point, at the same working directory: every path is the same.

# A directory on a mount of its own (not the one holding "/"), where the
# root can be bind-mounted privately; fails when there is none.
root_bind_parent () {
  local dir mnt
  for dir in "${TMPDIR:-/tmp}" /tmp /dev/shm /run; do
    [ -d "$dir" ] && [ -w "$dir" ] || continue
    mnt=$(findmnt -n -o TARGET -T "$dir" 2>/dev/null) || continue
    [ -n "$mnt" ] && [ "$mnt" != / ] && mountpoint -q "$mnt" || continue
    echo "$dir"
    return 0
  done
  return 1
}

# Why no private mount namespace can be made here (one line), or nothing.
mount_ns_problem () {
  unshare --mount --propagation private true 2>/dev/null && return 0
  unshare --mount --propagation unchanged true 2>/dev/null ||
    { echo "cannot make a mount namespace here (unshare --mount fails)"; return 0; }
  root_bind_parent > /dev/null ||
    echo "/ is not a mount point (a chroot?) and no directory on a mount of its own (${TMPDIR:-/tmp}, /tmp, /dev/shm, /run) can hold a private bind of it"
}

# Run CMD... where "/" is a mount point: as it is when it already is,
# else in a private bind of the root (see the top).
with_root_mount () {
  if unshare --mount --propagation private true 2>/dev/null; then
    "$@"
    return
  fi
  local parent dir status=0
  parent=$(root_bind_parent) || { echo "with_root_mount: $(mount_ns_problem)" >&2; return 1; }
  dir=$(mktemp -d "$parent/sb-root.XXXXXX") || return 1
  unshare --mount --propagation unchanged -- sh -c '
    dir=$1; shift
    mount --make-rprivate "$(findmnt -n -o TARGET -T "$dir")" &&
    mount --rbind / "$dir" && mount --make-rprivate "$dir" &&
    exec chroot "$dir" env -C "$PWD" "$@"' _ "$dir" "$@" || status=$?
  rmdir "$dir"
  return $status
}

# Run CMD... in a new mount namespace whose mounts are all private.
private_mount_ns () {
  with_root_mount unshare --mount --propagation private -- "$@"
}

# Run CMD... as the first process of a new pid namespace, with its own
# /proc, in a private mount namespace: whatever CMD leaves running ends
# with it.
private_pid_ns () {
  with_root_mount unshare --mount --propagation private --pid --fork --mount-proc -- "$@"
}
