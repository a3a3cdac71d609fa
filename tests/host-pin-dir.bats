#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Where host mode keeps its pins.  By default in /sys/fs/bpf/sockboost,
# mounting the BPF file system on /sys/fs/bpf first where nothing is
# mounted there (said on stdout); here in a private mount namespace, so
# the host's /sys/fs/bpf is never touched and the pins go with the
# namespace, which detaches the programs.  A pin directory that another
# user could have planted is refused: a link, another user's, writable
# by others, or not on a BPF file system; and so is one under a
# directory that another user could rename or replace entries of (each
# directory from / down, as tools/sockboostlib/trust.py's rule): one of
# another user's, one that others may write and that is not sticky, a
# link.  A name with a dot, which the BPF file system refuses, is said
# so.

load helpers

@test "host enable with the default pins: mounts bpffs on /sys/fs/bpf when missing, pins there" {
  hm_setup
  local ns_problem
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  run private_mount_ns sh -c '
    umount -l /sys/fs/bpf 2>/dev/null
    "$1" host enable --cgroup "$2" && "$1" host status &&
      ls /sys/fs/bpf/sockboost/current && "$1" host disable &&
      "$1" host enable --cgroup "$2" >/dev/null' sh "$SOCKBOOST" "$HM_CGROUP"
  assert_success
  assert_line --index 0 "mounted a BPF file system on /sys/fs/bpf (nothing was mounted there)"
  assert_line "pins: /sys/fs/bpf/sockboost/current"
  assert_line "connect4"
  assert_line "host mode off: its programs are detached and /sys/fs/bpf/sockboost is removed"
  # The namespace's end took its BPF file system and the pins left there.
  local deadline=$((SECONDS + 10))
  until [ -z "$(hm_attached_ids "$HM_CGROUP")" ]; do
    [ $SECONDS -lt $deadline ] || fail "programs still attached: $(hm_attached_ids "$HM_CGROUP")"
    sleep 0.1
  done
}

# Enable with the pin directory DIR: refused with WHY, nothing attached.
refused () {
  run "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$1"
  assert_failure 1
  assert_output "sockboost host: enable: $2"
  [ -z "$(hm_attached_ids "$HM_CGROUP")" ] || fail "programs attached after a refusal"
}

@test "host enable refuses a pin directory another user could have planted" {
  hm_setup
  mkdir -p "$HM_BPFFS/real" "$HM_BPFFS/theirs" "$HM_BPFFS/open"
  ln -s real "$HM_BPFFS/link"
  chown 65534:65534 "$HM_BPFFS/theirs"
  chmod 0777 "$HM_BPFFS/open"
  refused "$HM_BPFFS/link" "cannot open $HM_BPFFS/link: not a directory (a link?)"
  refused "$HM_BPFFS/theirs" "refusing $HM_BPFFS/theirs: owned by another user (remove it, or name another --pin-dir)"
  refused "$HM_BPFFS/open" "refusing $HM_BPFFS/open: writable by others (remove it, or name another --pin-dir)"
  refused "$BATS_TEST_TMPDIR/plain" "refusing $BATS_TEST_TMPDIR/plain: not on a BPF file system"
  refused relative "relative: the pin directory needs an absolute path shorter than 4096 bytes"
  [ -z "$(ls "$HM_BPFFS/real")" ] || fail "something was pinned through the link"
  [ ! -e "$BATS_TEST_TMPDIR/plain" ] || fail "a directory was made outside a BPF file system"
}

@test "host enable refuses a pin directory under one another user could change" {
  hm_setup
  mkdir -p "$HM_BPFFS/real" "$HM_BPFFS/theirs" "$HM_BPFFS/open" "$HM_BPFFS/group" "$HM_BPFFS/sticky"
  ln -s real "$HM_BPFFS/link"
  chown 65534:65534 "$HM_BPFFS/theirs"
  chmod 0777 "$HM_BPFFS/open"
  chmod 0775 "$HM_BPFFS/group"
  chmod 1777 "$HM_BPFFS/sticky"
  refused "$HM_BPFFS/open/sockboost" "refusing $HM_BPFFS/open/sockboost: $HM_BPFFS/open may be written by others"
  refused "$HM_BPFFS/group/sockboost" "refusing $HM_BPFFS/group/sockboost: $HM_BPFFS/group may be written by its group"
  refused "$HM_BPFFS/theirs/sockboost" "refusing $HM_BPFFS/theirs/sockboost: $HM_BPFFS/theirs belongs to uid 65534"
  refused "$HM_BPFFS/link/sockboost" "refusing $HM_BPFFS/link/sockboost: $HM_BPFFS/link is a symbolic link"
  refused "$HM_BPFFS/real/../real/sockboost" "refusing $HM_BPFFS/real/../real/sockboost: not a plain path to a directory (no . or ..)"
  refused "$HM_BPFFS/sock.boost" "refusing $HM_BPFFS/sock.boost: the BPF file system reserves names with a dot (name it without one)"
  [ -z "$(find "$HM_BPFFS/open" "$HM_BPFFS/group" "$HM_BPFFS/theirs" "$HM_BPFFS/real" -mindepth 1)" ] ||
    fail "a pin directory was made under a refused one"
  # Others may write a sticky directory, but not rename what is root's.
  run "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$HM_BPFFS/sticky/sockboost"
  assert_success
  run "$SOCKBOOST" host disable --pin-dir "$HM_BPFFS/sticky/sockboost"
  assert_success
}
