# SPDX-License-Identifier: MIT
# Host mode in a test (sourced by helpers.bash): cgroups of the test's
# own and a BPF file system of its own for the pins, so that nothing of
# the host's is attached, pinned or changed; all undone at teardown.
#
#   hm_setup                   root, sb-host, bpftool and cgroup v2, or
#                              skip; makes HM_CGROUP and HM_PINS
#   hm_cgroup VAR              another cgroup of the test's, its path in VAR
#   hm_in_cgroup CG CMD...     CMD in cgroup CG (its children stay there)
#   hm_start_qemu_nbd_tcp CG FILE
#                              start_qemu_nbd_tcp FILE, in cgroup CG
#   hm_migration_rounds ROUNDS DIRECTION IMAGE
#                              migration_rounds (helpers-migration.bash)
#                              with both QEMUs in a plain cgroup, then in
#                              HM_CGROUP, in turns; sets PLAIN_TIMES and
#                              HOST_TIMES (and their _ACKS)
#   hm_lv_start NAME           lv_start NAME (helpers-libvirt.bash) with the
#                              daemon, so its QEMUs, in HM_CGROUP; stopped
#                              at teardown
#   hm_as_nobody CG CMD...     CMD as user nobody in cgroup CG, with the
#                              system's PATH; a test
#                              script in CMD (tests/NAME) is given by
#                              hm_nobody_script
#   hm_nobody_script VAR NAME  the path of tests/NAME that nobody can
#                              read (a copy when the tree is not readable)
#   hm_host ARG...             sockboost host ARG... with the test's pins
#   hm_with_default_pins CMD...
#                              CMD in a mount namespace of its own where
#                              the test's BPF file system is /sys/fs/bpf:
#                              the default pins are the test's (doctor,
#                              status)
#   hm_metric NAME{LABELS} TEXT
#                              the value of that sample in the Prometheus
#                              text TEXT (sockboost metrics, a scrape)
#   hm_enable [ARG...]         host enable on HM_CGROUP, checked
#   hm_attached_ids CG         ids of the programs attached to CG, sorted
#   hm_wait_objects_gone KIND ID...
#                              bounded wait until bpftool knows none of
#                              the programs/maps/links ID...
#   hm_map_ids_of ID...        ids of the maps the programs ID... use
#
# A test's processes in its cgroups are its own: teardown kills what is
# left there (cgroup.kill) before removing the cgroup.

hm_setup () {
  [ "$(id -u)" -eq 0 ] || sb_skip "host mode needs root"
  requires findmnt mount umount
  HM_SB_HOST=$SB_BUILD/tools/sb-host
  [ -x "$HM_SB_HOST" ] ||
    sb_skip "sockboost host was not built (needs clang, libbpf-dev and bpftool)"
  HM_BPFTOOL=$(PATH=$PATH:/usr/sbin:/sbin command -v bpftool) ||
    sb_skip "needs bpftool, not installed (tests/install-deps installs it as root)"
  [ -x "$SB_BUILD/tests/progs/bpf-cgroup-progs" ] ||
    sb_skip "tests/progs/bpf-cgroup-progs is not built: make test-programs"
  HM_CGROUP2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
  [ -n "$HM_CGROUP2" ] || sb_skip "no cgroup v2 file system is mounted here"
  hm_cgroup HM_CGROUP
  HM_BPFFS=$BATS_TEST_TMPDIR/bpffs
  mkdir -p "$HM_BPFFS"
  mount -t bpf bpf "$HM_BPFFS" || fail "cannot mount a BPF file system"
  # Unmounting the private BPF file system drops every pin in it, which
  # detaches what they hold, even if the test failed half-way.
  cleanup_push "umount '$HM_BPFFS'"
  HM_PINS=$HM_BPFFS/sockboost
  export HM_SB_HOST HM_BPFTOOL HM_CGROUP2 HM_CGROUP HM_PINS
}

hm_cgroup () {
  local -n hm_path=$1
  hm_path=$HM_CGROUP2/sockboost-test.$$.$BATS_TEST_NUMBER.$RANDOM
  mkdir "$hm_path" || fail "cannot make cgroup $hm_path"
  cleanup_push "hm_remove_cgroup '$hm_path'"
}

# Kill what is left in the test's cgroup CG (only the test's processes
# and their children are ever there), then remove it.  cgroup files say
# they are empty (size 0) whatever they hold: cgroup.procs is read.
hm_remove_cgroup () {
  local cg=$1 i
  [ -d "$cg" ] || return 0
  for ((i = 0; i < 100; i++)); do
    [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] || break
    echo 1 >"$cg/cgroup.kill" 2>/dev/null || xargs -r kill -KILL <"$cg/cgroup.procs"
    sleep 0.05
  done
  for ((i = 0; i < 100; i++)); do
    rmdir "$cg" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "cannot remove cgroup $cg" >&2
  return 1
}

# A command prefix: "${HM_IN_CGROUP[@]}" CG CMD... runs CMD in cgroup CG
# as the same process (timeout, nohup and & can run it).
HM_IN_CGROUP=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' hm-in-cgroup)

hm_in_cgroup () {
  "${HM_IN_CGROUP[@]}" "$@"
}

# As start_qemu_nbd_tcp (helpers-qemu-tcp.bash) does, in cgroup CG: the
# subshell execs the command, so QEMU_TCP_PID is qemu-nbd's own.
hm_start_qemu_nbd_tcp () {
  local cg=$1 file=$2 log=$BATS_TEST_TMPDIR/qemu-nbd-tcp.$RANDOM.log
  requires qemu-nbd ss
  # fd 3 is bats' own: a server holding it would stall the test run.
  (exec "${HM_IN_CGROUP[@]}" "$cg" ${QT_NETNS[@]+"${QT_NETNS[@]}"} \
     qemu-nbd -r -t -f raw -b 127.0.0.1 -p 0 "$file") 2>"$log" 3>&- &
  QEMU_TCP_PID=$!
  kill_at_teardown "$QEMU_TCP_PID"
  qt_wait_for_listener "$QEMU_TCP_PID" "$log"
}

hm_migration_rounds () {
  local rounds=$1 direction=$2 image=$3 round plain_cgroup out
  requires qemu-system-x86_64 qemu-img python3 timeout unshare ip
  hm_cgroup plain_cgroup
  migration_copy_path out
  PLAIN_TIMES=() HOST_TIMES=() PLAIN_TIMES_ACKS=() HOST_TIMES_ACKS=()
  for ((round = 0; round < rounds; round++)); do
    migration_once PLAIN_TIMES "$direction" "$image" "$out" "" "" \
      "${HM_IN_CGROUP[@]}" "$plain_cgroup"
    migration_once HOST_TIMES "$direction" "$image" "$out" "" "" \
      "${HM_IN_CGROUP[@]}" "$HM_CGROUP"
  done
}

# libvirt here makes no cgroup of its own: the daemon's processes stay in
# the cgroup it was started in.  A subshell joins HM_CGROUP to start it.
hm_lv_start () {
  lv_reachable_library
  (echo "$BASHPID" >"$HM_CGROUP/cgroup.procs" && lv_start "$1") ||
    fail "cannot start libvirtd in $HM_CGROUP"
  lv_use "$1"
  cleanup_push lv_stop
}

hm_as_nobody () {
  local cg=$1
  shift
  # root's PATH may lead through root's home (pyenv's shims).
  hm_in_cgroup "$cg" setpriv --reuid=65534 --regid=65534 --clear-groups \
    env PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

# The Python test scripts import their modules from their own directory:
# a copy takes them all.
hm_nobody_script () {
  local -n hm_script=$1
  local dir
  hm_script=$SB_TESTS_DIR/$2
  requires setpriv
  setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$hm_script" && return 0
  dir=$(mktemp -d /tmp/sockboost-nobody.XXXXXX) || fail "cannot make a directory for nobody"
  cleanup_push "rm -rf '$dir'"
  cp "$SB_TESTS_DIR"/*.py "$dir/"
  chmod 0755 "$dir"
  chmod 0644 "$dir"/*.py
  hm_script=$dir/$2
}

hm_host () {
  "$SOCKBOOST" host "$@" --pin-dir "$HM_PINS"
}

hm_metric () {
  awk -v want="$1" '$1 == want { print $2 }' <<<"$2"
}

hm_with_default_pins () {
  private_mount_ns sh -c 'mount --bind "$1" /sys/fs/bpf && shift && exec "$@"' \
    _ "$HM_BPFFS" "$@"
}

# Enable host mode on the test's cgroup; fail (with its output) unless
# it says so.
hm_enable () {
  run hm_host enable --cgroup "$HM_CGROUP" "$@"
  [ "$status" -eq 0 ] || fail "host enable failed ($status): $output"
  echo "$output"
}

# The ids of the BPF programs attached to cgroup CG, one per line, sorted,
# for every attach type the kernel has (tests/progs/bpf-cgroup-progs:
# bpftool 7.1 does not ask for the unix socket hooks).
hm_attached_ids () {
  "$SB_BUILD/tests/progs/bpf-cgroup-progs" "$1" | cut -d' ' -f2 | sort -n
}

# Wait up to 10 s until bpftool knows none of the objects ID... of KIND
# (prog, map, link): the kernel frees a map a moment after its last user.
hm_wait_objects_gone () {
  local kind=$1 id deadline=$((SECONDS + 10)) left
  shift
  while :; do
    left=()
    for id; do
      "$HM_BPFTOOL" "$kind" show id "$id" >/dev/null 2>&1 && left+=("$id")
    done
    [ ${#left[@]} -eq 0 ] && return 0
    [ $SECONDS -lt $deadline ] || { echo "$kind ids still there: ${left[*]}" >&2; return 1; }
    sleep 0.1
  done
}

# The map ids the programs ID... use, one per line.
hm_map_ids_of () {
  local id
  for id; do
    "$HM_BPFTOOL" -j prog show id "$id" |
      python3 -c 'import json, sys; print(*json.load(sys.stdin).get("map_ids", []), sep="\n")'
  done | sort -un
}
