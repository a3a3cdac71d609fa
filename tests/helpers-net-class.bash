# SPDX-License-Identifier: MIT
# cgroup v1 net_cls and net_prio in a test (sourced by helpers.bash):
# hierarchies of those controllers mounted in a mount namespace of the
# test's own, a cgroup of the test's in each, and the class that a
# process's sockets carry, read from outside (tests/progs/socket-class:
# the kernel's socket iterators, no copy of any socket).  A hierarchy is
# the whole host's while it exists, mounted anywhere or not: the test
# takes only controllers no hierarchy has, and teardown releases them.
#
#   nc_setup CONTROLLERS...  one v1 hierarchy for each argument (e.g.
#                            net_cls,net_prio, or net_cls net_prio), in
#                            a mount namespace of the test's, or skip;
#                            a cgroup in each (NC_CGROUPS), where net_cls
#                            has the classid NC_CLASSID
#   nc_in CMD...             CMD in that mount namespace
#   nc_holder NAME [CGROUP2] tests/net-class-holder.py NAME (in the cgroup
#                            v2 CGROUP2), moved into NC_CGROUPS before it
#                            makes its sockets; sets NC_HOLDER
#   nc_classes PID           "FD CLASSID PRIOIDX" for each socket of PID
#   nc_assert_class PID WHEN fail unless every socket of PID carries the
#                            class of NC_CGROUPS (WHEN says at what point)

NC_CLASSID=$((0x10001))   # tc's class 1:1

nc_setup () {
  local controllers c hierarchy pidfile=$BATS_TEST_TMPDIR/nc-ns.pid i=0 mnt
  [ "$(id -u)" -eq 0 ] || sb_skip "mounting a cgroup v1 hierarchy needs root"
  requires nsenter unshare
  [ -x "$SB_BUILD/tests/progs/socket-class" ] ||
    sb_skip "tests/progs/socket-class is not built (host mode's toolchain: clang, libbpf-dev, bpftool)"
  for controllers; do
    for c in ${controllers//,/ }; do
      hierarchy=$(awk -v c="$c" '$1 == c { print $2 }' /proc/cgroups)
      [ -n "$hierarchy" ] || sb_skip "this kernel has no $c controller"
      [ "$hierarchy" -eq 0 ] ||
        sb_skip "$c is in cgroup v1 hierarchy $hierarchy of this host: the test leaves it alone"
    done
  done
  NC_HIERARCHIES=("$@")
  (exec 3>&-; private_mount_ns sh -c 'echo $$ >"$1" && exec sleep 3600' _ "$pidfile") &
  kill_at_teardown $!
  wait_for_file "$pidfile" || fail "no mount namespace for the test"
  NC_NS=$(cat "$pidfile")
  cleanup_push "kill $NC_NS 2>/dev/null"
  NC_MOUNTS=() NC_CGROUPS=()
  check_at_teardown nc_released
  for controllers; do
    mnt=$BATS_TEST_TMPDIR/v1-$((i++))
    mkdir "$mnt"
    nc_in mount -t cgroup -o "$controllers" sockboost-test "$mnt" ||
      fail "cannot mount a cgroup v1 hierarchy of $controllers"
    NC_MOUNTS+=("$mnt")
    cleanup_push "nc_unmount '$mnt' '${controllers%%,*}'"
    nc_in mkdir "$mnt/test" || fail "cannot make a cgroup in $mnt"
    cleanup_push "nc_remove_cgroup '$mnt/test'"
    NC_CGROUPS+=("$mnt/test")
    if [[ ",$controllers," == *,net_cls,* ]]; then
      nc_in sh -c 'echo "$1" >"$2/net_cls.classid"' _ "$NC_CLASSID" "$mnt/test" ||
        fail "cannot set the classid of $mnt/test"
    fi
  done
}

nc_in () {
  nsenter -t "$NC_NS" -m -r -w -- "$@"
}

# The test's processes are gone by now (stopped before, LIFO): a cgroup
# just emptied may still refuse removal for a moment.
nc_remove_cgroup () {
  local i
  for ((i = 0; i < 100; i++)); do
    nc_in rmdir "$1" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "cannot remove cgroup $1" >&2
}

# The kernel frees a hierarchy at its last unmount only when no cgroup is
# left in it, and a cgroup removed is freed a moment after: wait for that
# (its count in /proc/cgroups back to 1, its root) before unmounting.
nc_unmount () {
  local mnt=$1 controller=$2 i
  for ((i = 0; i < 200; i++)); do
    [ "$(awk -v c="$controller" '$1 == c { print $3 }' /proc/cgroups)" = 1 ] && break
    sleep 0.05
  done
  nc_in umount "$mnt"
}

# Every controller the test took is in no v1 hierarchy again.  One still
# held (a cgroup freed only after the unmount) is mounted again in a
# namespace of its own and unmounted, until it goes.
nc_released () {
  local controllers i held
  for ((i = 0; i < 50; i++)); do
    held=()
    for controllers in "${NC_HIERARCHIES[@]}"; do
      [ "$(awk -v c="${controllers%%,*}" '$1 == c { print $2 }' /proc/cgroups)" = 0 ] ||
        held+=("$controllers")
    done
    [ ${#held[@]} -eq 0 ] && return 0
    for controllers in "${held[@]}"; do
      private_mount_ns sh -c 'mount -t cgroup -o "$1" sockboost-test "$2" && sleep 0.1 && umount "$2"' \
        _ "$controllers" "$BATS_TEST_TMPDIR" 2>/dev/null
    done
    sleep 0.1
  done
  echo "the test left cgroup v1 hierarchies of ${held[*]} behind" >&2
  return 1
}

nc_holder () {
  local name=$1 cgroup2=${2:-} go=$BATS_TEST_TMPDIR/nc-go ready=$BATS_TEST_TMPDIR/nc-ready cg
  requires python3
  if [ -n "$cgroup2" ]; then
    (exec "${HM_IN_CGROUP[@]}" "$cgroup2" python3 "$SB_TESTS_DIR/net-class-holder.py" \
       "$name" "$go" "$ready") 3>&- &
  else
    python3 "$SB_TESTS_DIR/net-class-holder.py" "$name" "$go" "$ready" 3>&- &
  fi
  NC_HOLDER=$!
  kill_at_teardown "$NC_HOLDER"
  for cg in "${NC_CGROUPS[@]}"; do
    nc_in sh -c 'echo "$1" >"$2/cgroup.procs"' _ "$NC_HOLDER" "$cg" ||
      fail "cannot move the holder into $cg"
  done
  touch "$go"
  wait_for_file "$ready" 20 || fail "the holder made no sockets"
}

nc_classes () {
  local pid=$1 fd link fds=() inodes=()
  for fd in $(ls "/proc/$pid/fd" | sort -n); do
    link=$(readlink "/proc/$pid/fd/$fd") || continue
    [[ $link == socket:\[*\] ]] || continue
    link=${link#socket:[}
    fds+=("$fd") inodes+=("${link%]}")
  done
  [ ${#inodes[@]} -gt 0 ] || return 0
  "$SB_BUILD/tests/progs/socket-class" "${inodes[@]}" |
    paste -d' ' <(printf '%s\n' "${fds[@]}") - | cut -d' ' -f1,3,4
}

# The class of NC_CGROUPS: net_cls's classid where net_cls is mounted (0
# elsewhere), net_prio's index (its cgroup's prioidx) where net_prio is
# (1, the index of the root of the hierarchy it is not in, elsewhere).
nc_expected_class () {
  local classid=0 prioidx=1 cg
  for cg in "${NC_CGROUPS[@]}"; do
    nc_in test -e "$cg/net_cls.classid" && classid=$(nc_in cat "$cg/net_cls.classid")
    nc_in test -e "$cg/net_prio.prioidx" && prioidx=$(nc_in cat "$cg/net_prio.prioidx")
  done
  echo "$classid $prioidx"
}

nc_assert_class () {
  local pid=$1 when=$2 want classes wrong
  want=$(nc_expected_class)
  classes=$(nc_classes "$pid")
  [ "$(wc -l <<<"$classes")" -ge 5 ] ||
    fail "$when: fewer than 5 sockets of process $pid seen: $classes"
  wrong=$(awk -v want="$want" '$2 " " $3 != want' <<<"$classes")
  [ -z "$wrong" ] ||
    fail "$when: sockets of process $pid not in the class of their cgroups ($want: classid, prioidx): fd classid prioidx: $(echo $wrong)"
}
