# SPDX-License-Identifier: MIT
# A real libvirtd for a test (sourced by helpers.bash): Debian's daemon,
# without systemd, in a private network, mount and pid namespace, with
# configuration and state of its own.  Nothing of the host's libvirt is
# read or written: /etc/libvirt, /var/lib/libvirt, /var/log/libvirt,
# /var/cache/libvirt and /run are directories of the test's, bind-mounted
# in the daemon's mount namespace, and /tmp is a private tmpfs there
# (but for the test run's own directory).
#
#   lv_start NAME [--netns-of PID]   start virtlogd and libvirtd; sets
#                                    LV_DIR, LV_URI, LV_INIT (below)
#   lv_stop                          stop it and everything it started
#   lv_use NAME                      use the daemon started as NAME
#   lv_virsh ARG...                  virsh on this daemon
#   lv_netns CMD...                  CMD in the daemon's network namespace
#   lv_image NAME                    path of a disk image (host's view)
#   lv_define_domain NAME [XML-EXTRA]
#                                    a TCG domain, 64 MiB, disk lv_image NAME
#   lv_qemu_pid NAME                 the host pid of the domain's QEMU
#   lv_assert_only_block_added BEFORE ENABLED
#                                    what enable changed is its block
#   lv_define_twins MIB NAME...      domains on copies of one
#                                    fragmented disk image
#   lv_backup_begin NAME PORT [tls]  a pull backup of its disk;
#                                    lv_backup_end NAME
#   lv_time_backup_rounds ROUNDS PLAIN PORT BOOSTED PORT [tls]
#                                    interleaved timed copies, checked
#
# LV_DIR holds the daemon's directories (etc, lib, log, cache, run) and
# its logs; LV_URI reaches it from the host through its socket; LV_INIT
# is the host pid of the namespace's init, whose death ends everything
# in the namespace.  QEMU runs as root with no per-domain namespace or
# cgroup (what a container without systemd allows).  Call lv_start in
# setup_file and lv_stop in teardown_file to share one daemon among a
# file's tests.  A second daemon for a migration shares the first one's
# network namespace (--netns-of "$LV_INIT"): both listen on 127.0.0.1 of
# that namespace, and their mount namespaces keep their disks apart.
# Inside the namespaces, an image's path is /var/lib/libvirt/images/...

# Longest wait for the daemon to answer (it probes QEMU at start-up).
LV_START_TIMEOUT=${LV_START_TIMEOUT:-60}

lv_start () {
  local name=$1 netns=() new_netns=-n init
  [ "${2:-}" != --netns-of ] || { netns=(nsenter -t "$3" -n --); new_netns=; }
  requires libvirtd virtlogd virsh unshare nsenter qemu-system-x86_64
  lv_reachable_library
  LV_DIR=$BATS_FILE_TMPDIR/libvirt-$name
  mkdir -p "$LV_DIR"/{etc/qemu,lib/images,log,cache,run,tls}
  lv_write_config
  # fd 3 is bats' own: a daemon holding it would stall the test run.
  ${netns[@]+"${netns[@]}"} unshare $new_netns -m -p --fork --mount-proc --kill-child \
    bash -c "$(declare -f lv_namespace_init); lv_namespace_init \"\$1\"" \
    lv-init "$LV_DIR" >"$LV_DIR/init.log" 2>&1 3>&- &
  echo "$!" >"$LV_DIR/pids"
  lv_use "$name"
  lv_wait_for_daemon
  init=$(cat "/proc/$LV_UNSHARE/task/$LV_UNSHARE/children")
  echo "$LV_UNSHARE ${init%% *}" >"$LV_DIR/pids"
  lv_use "$name"
}

# QEMU runs as root here but as libvirt-qemu elsewhere, so 'sockboost
# libvirt enable' warns when others cannot reach the library, as in a
# checkout under /root (0700 on Debian; CI may clone there).  The libvirt
# tests use a copy of the build's library in a directory others can
# search, as an installed one is: under run-tests' TMPDIR, which the
# daemons' private /tmp keeps, else in /var/tmp, which it does not hide.
# Exported from setup_file for the file's tests; lv_stop removes it.
lv_reachable_library () {
  [ -z "${LV_LIBRARY_DIR:-}" ] || return 0
  LV_LIBRARY_DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/sockboost-libvirt.XXXXXX")
  chmod 0755 "$LV_LIBRARY_DIR"
  cp "$LIBSOCKBOOST" "$LV_LIBRARY_DIR/libsockboost.so"
  LIBSOCKBOOST=$LV_LIBRARY_DIR/libsockboost.so
  export LV_LIBRARY_DIR LIBSOCKBOOST SOCKBOOST_LIBRARY=$LIBSOCKBOOST
}

# This file is sourced again for each test: a file whose setup_file made
# the copy uses it in every test (helpers-sockboost.bash, sourced after
# this one, points SOCKBOOST_LIBRARY at LIBSOCKBOOST).
if [ -n "${LV_LIBRARY_DIR:-}" ]; then
  LIBSOCKBOOST=$LV_LIBRARY_DIR/libsockboost.so
fi

# In a chroot (as package builders run tests), the paths in
# /proc/PID/maps of a QEMU in the daemon's mount namespace cannot be
# expressed from our root, and the kernel gives them from outside the
# chroot (the daemon's own root then reads as the chroot's directory, not
# /): a test that compares such a path skips there, saying why.
lv_requires_shared_paths () {
  local root
  root=$(readlink "/proc/$LV_INIT/root")
  [ "$root" = / ] ||
    sb_skip "in a chroot: the daemon's root reads as $root, and so do the paths /proc/PID/maps gives"
}

# Make the daemon started as NAME the one the other functions use.
lv_use () {
  LV_DIR=$BATS_FILE_TMPDIR/libvirt-$1
  LV_URI="qemu+unix:///system?socket=$LV_DIR/run/libvirt/libvirt-sock"
  read -r LV_UNSHARE LV_INIT <"$LV_DIR/pids" || true
  export LV_DIR LV_URI LV_UNSHARE LV_INIT
}

# The daemons' configuration: root QEMU, no namespaces or cgroups, no
# authentication on the private socket, errors logged in LV_DIR/log.
# host_uuid differs per daemon, or libvirt refuses a migration as one
# to the same host.
lv_write_config () {
  cat >"$LV_DIR/etc/qemu.conf" <<EOF
namespaces = [ ]
cgroup_controllers = [ ]
user = "root"
group = "root"
remember_owner = 0
backup_tls_x509_cert_dir = "$LV_DIR/tls"
backup_tls_x509_verify = 1
EOF
  cat >"$LV_DIR/etc/libvirtd.conf" <<EOF
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
host_uuid = "$(cat /proc/sys/kernel/random/uuid)"
EOF
  echo 'log_outputs = "3:file:/var/log/libvirt/virtlogd.log"' \
    >"$LV_DIR/etc/virtlogd.conf"
}

# Runs as pid 1 of the namespace: the private directories, loopback up,
# the daemons, then stays (its exit would end the namespace).  The
# test run's directory under /tmp that holds DIR (run-tests' TMPDIR)
# stays reachable at its own path under the private /tmp, through a
# descriptor opened before /tmp was covered.
lv_namespace_init () {
  local dir=$1 target run_dir
  set -e
  for target in etc:/etc/libvirt lib:/var/lib/libvirt log:/var/log/libvirt \
                cache:/var/cache/libvirt run:/run; do
    mount --bind "$dir/${target%%:*}" "${target#*:}"
  done
  case $dir in
    /tmp/*) run_dir=${dir#/tmp/}; run_dir=/tmp/${run_dir%%/*}; exec 7<"$run_dir" ;;
  esac
  mount -t tmpfs -o mode=1777 lv-tmp /tmp
  case $dir in
    /tmp/*) mkdir "$run_dir"
            mount --no-canonicalize --bind /proc/self/fd/7 "$run_dir"
            exec 7<&- ;;
  esac
  ip link set lo up
  virtlogd -d
  libvirtd -d
  set +e
  trap 'exit 0' TERM
  while :; do sleep 3600 & wait $!; done
}

# Bounded: the socket, then an answer.  On failure, the logs say why.
lv_wait_for_daemon () {
  local deadline=$((SECONDS + LV_START_TIMEOUT))
  until [ -S "$LV_DIR/run/libvirt/libvirt-sock" ] &&
      timeout 10 virsh -c "$LV_URI" uri >/dev/null 2>&1; do
    if ! kill -0 "$LV_UNSHARE" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      cat "$LV_DIR/init.log" "$LV_DIR/log/libvirtd.log" >&2 2>/dev/null
      fail "libvirtd did not answer on $LV_URI within $LV_START_TIMEOUT s"
    fi
    sleep 0.1
  done
}

# The init's exit takes the daemons and their QEMUs with it (SIGKILL
# from the kernel); unshare then exits.  Without an init (a failed
# start), unshare's death kills its child (--kill-child).
lv_stop () {
  [ -n "${LV_UNSHARE:-}" ] || return 0
  if [ -n "${LV_INIT:-}" ]; then
    kill -TERM "$LV_INIT" 2>/dev/null || true
    timeout 10 tail --pid="$LV_UNSHARE" -f /dev/null
  fi
  kill -KILL "$LV_UNSHARE" 2>/dev/null || true
  wait "$LV_UNSHARE" 2>/dev/null || true
  rm -rf "${LV_LIBRARY_DIR:-}"
  LV_UNSHARE= LV_INIT=
}

lv_virsh () {
  timeout 120 virsh -q -c "$LV_URI" "$@"
}

lv_netns () {
  nsenter -t "$LV_INIT" -n -- "$@"
}

lv_image () {
  echo "$LV_DIR/lib/images/$1.img"
}

# Define domain NAME: TCG, 64 MiB, one raw virtio disk (lv_image NAME,
# which must exist), nothing else the test does not need; XML-EXTRA goes
# into <devices>.  No kernel: it sits in firmware and never writes the disk.
lv_define_domain () {
  local name=$1 xml=$LV_DIR/$1.xml
  cat >"$xml" <<EOF
<domain type='qemu'>
  <name>$name</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices>
    <emulator>$(command -v qemu-system-x86_64)</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='/var/lib/libvirt/images/$name.img'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>${2:-}
  </devices>
</domain>
EOF
  lv_virsh define "$xml" >/dev/null
}

# QEMU's command line carries the domain's UUID; the daemon's QEMUs are
# children of the namespace's init, which a process with the same UUID
# started elsewhere is not (its pid in the namespace is another number).
lv_qemu_pid () {
  local uuid pid
  uuid=$(lv_virsh domuuid "$1") || return 1
  pid=$(pgrep -P "$LV_INIT" -f -- "-uuid $uuid( |\$)") || {
    echo "no QEMU process for domain $1 ($uuid)" >&2
    return 1
  }
  echo "$pid"
}

# Fail unless definition ENABLED differs from BEFORE (files, as virsh
# dumpxml writes them) only by <domain>'s line and added lines of the
# top-level <qemu:commandline> block: what sockboost libvirt enable may
# change.
lv_assert_only_block_added () {
  local line
  while IFS= read -r line; do
    case $line in
      "< <domain "*|"> <domain "*) ;;
      ">   <qemu:commandline>"|">   </qemu:commandline>") ;;
      ">     <qemu:env name='"*"' value='"*"'/>") ;;
      *) fail "enable changed more than its block: $line" ;;
    esac
  done < <(diff "$1" "$2" | grep '^[<>]')
}

# Start a pull-mode backup of DOMAIN's disk vda (libvirt's
# backup-begin): QEMU serves it as export vda on 127.0.0.1:PORT of the
# daemon's network namespace (no other program listens there), over TLS
# with tls (the certificates in LV_DIR/tls, from make_tls_certs).  The
# scratch file is a new one each time.  backup-begin returns once QEMU
# listens.
lv_backup_begin () {
  local domain=$1 port=$2 tls= xml=$LV_DIR/backup.$RANDOM.xml
  [ -z "${3:-}" ] || tls=" tls='yes'"
  cat >"$xml" <<EOX
<domainbackup mode='pull'>
  <server transport='tcp' name='127.0.0.1' port='$port'$tls/>
  <disks>
    <disk name='vda' backup='yes' type='file'>
      <scratch file='/var/lib/libvirt/images/$domain.scratch.$RANDOM'/>
    </disk>
  </disks>
</domainbackup>
EOX
  lv_virsh backup-begin "$domain" "$xml" >/dev/null
}

# End DOMAIN's backup job (a pull backup runs until the client says so).
lv_backup_end () {
  lv_virsh domjobabort "$1"
}

# Copy the backup on PORT to the raw file OUT, from inside the daemon's
# network namespace; over TLS with the client certificate of LV_DIR/tls
# when the third argument is tls.  The client is chosen so that every
# plain copy stalls alike (QEMU 7.2 leaves Nagle on: a reply sent while
# an earlier small one is unacknowledged waits for the client's delayed
# ACK, unless a request from the client carries the ACK first):
#  - over TCP, qemu-img dd: one READ at a time, each of one stride of
#    the disk (make_sparse_image), answered as a data chunk then a hole
#    chunk that waits: one stall per stride, every copy.  qemu-img
#    convert stalls at random there: it reads only the data extents,
#    a READ in flight with the BLOCK_STATUS of the next extent, and a
#    reply waits only when the READ's left after the client's last
#    request arrived, a race (2 to 63 stalls of 64 from copy to copy
#    here, fewer under load);
#  - over TLS, qemu-img convert: QEMU sends the parts of a reply as TLS
#    records of their own, so every reply waits, whatever the client
#    has in flight (34 or 35 stalls for 8 strides, every copy here).
lv_copy_backup () {
  local port=$1 out=$2
  rm -f "$out"
  if [ -z "${3:-}" ]; then
    lv_netns timeout "$QEMU_TCP_COPY_TIMEOUT" qemu-img dd -f raw -O raw \
      "bs=${SPARSE_STRIDE_KIB}k" "if=nbd://127.0.0.1:$port/vda" "of=$out"
  else
    lv_netns timeout "$QEMU_TCP_COPY_TIMEOUT" qemu-img convert \
      --object "tls-creds-x509,id=tls0,dir=$LV_DIR/tls,endpoint=client" \
      --image-opts "driver=nbd,host=127.0.0.1,port=$port,export=vda,tls-creds=tls0" \
      -O raw "$out"
  fi
}

# Copy the running backup of DOMAIN on PORT (over TLS with tls), check
# the copy against the domain's disk image (a domain sitting in firmware
# never writes it), and append its seconds to the array named VAR and
# the delayed ACKs it took to the array named VAR_ACKS.
lv_time_backup_copy () {
  time_copy "$1" lv_netns "$(lv_image "$2")" "$3" \
    "$BATS_TEST_TMPDIR/backup-copy.img" lv_copy_backup "${4:-}"
}

# Copy the running backups of domain PLAIN on PORT and domain BOOSTED
# on PORT in turns, ROUNDS times each (over TLS with tls), every copy
# checked; set LV_PLAIN_TIMES and LV_BOOSTED_TIMES (and their _ACKS).
# A plain copy stalls the same number of times in every round
# (lv_copy_backup), so its time is a floor that load only adds to:
# medians of interleaved rounds compare them.
lv_time_backup_rounds () {
  local rounds=$1 plain=$2 plain_port=$3 boosted=$4 boosted_port=$5 tls=${6:-}
  LV_PLAIN_TIMES=() LV_BOOSTED_TIMES=() LV_PLAIN_TIMES_ACKS=() LV_BOOSTED_TIMES_ACKS=()
  for ((; rounds > 0; rounds--)); do
    lv_time_backup_copy LV_PLAIN_TIMES "$plain" "$plain_port" "$tls"
    lv_time_backup_copy LV_BOOSTED_TIMES "$boosted" "$boosted_port" "$tls"
  done
}

# Define domains NAME... on copies of one new fragmented disk image of
# MIB MiB (make_sparse_image), so that their backups hold the same data.
lv_define_twins () {
  local mib=$1 name
  shift
  make_sparse_image "$(lv_image "$1")" "$mib"
  for name in "$@"; do
    [ "$name" = "$1" ] || cp --sparse=always "$(lv_image "$1")" "$(lv_image "$name")"
    lv_define_domain "$name"
  done
}
