# SPDX-License-Identifier: MIT
# Real disk images over TCP from qemu-nbd (sourced by helpers.bash): the
# images, TLS certificates, the server, and clients that copy an export.
#
#   make_sparse_image FILE MIB [STRIDE_KIB [EXTENT_KIB]]
#   make_fs_image FILE.qcow2 MIB DATA_MIB      (also leaves FILE.qcow2.raw)
#   make_tls_certs DIR                         (qemu's tls-creds-x509 layout)
#   qt_private_netns                           servers and clients started
#                                              after it run in a network
#                                              namespace of the test's own
#   start_qemu_nbd_tcp [--boosted] [--tls DIR] [--format FMT] FILE
#   qemu_img_copy_tcp PORT OUT [TLS_DIR]       qemu-img convert to raw OUT
#   qemu_img_dd_tcp PORT OUT                   qemu-img dd, a stride a READ
#   nbdcopy_tcp PORT OUT [TLS_DIR]             nbdcopy to OUT
#   delayed_acks [CMD...]                      delayed ACKs sent so far in
#                                              CMD's network namespace
#   times_and_acks VAR                         seconds in the array VAR and
#                                              delayed ACKs in VAR_ACKS
#   time_command VAR CMD...                    wall seconds of CMD into VAR
#   median_of SECONDS...                       their median
#   assert_speedup SLOW FAST FACTOR            SLOW >= FACTOR * FAST
#   assert_tcp_gain PLAIN BOOSTED FACTOR       by qemu-nbd version (below)
#   fastest_of N...                            the smallest of the numbers
#   tcp_rounds [MIN]                           rounds worth timing (below)
#   time_copies ROUNDS EXPECTED PLAIN_PORT BOOSTED_PORT COPY [ARG...]
#                                              interleaved timed copies
#   time_copy VAR NETNS EXPECTED PORT OUT COPY [ARG...]
#                                              one of them (below)
#
# qemu-nbd before 8.0 leaves Nagle's algorithm on for the TCP connections
# it accepts, so a small chunk of a structured read reply (a data extent,
# a hole) sent while an earlier one is unacknowledged waits for the
# client's delayed ACK, about 40 ms, unless a request from the client
# carries the ACK first: a fragmented sparse image copies slowly without
# the library and fast with it (the library sets TCP_NODELAY on the
# accepted socket).  qemu-nbd 8.0 and later set TCP_NODELAY and cork each
# reply themselves: there is no stall left to remove, and the library
# must add none.
#
# How many replies wait depends on the client.  qemu-img dd has one READ
# in flight: each reply of a stride is a data chunk then a hole chunk
# that waits, one stall per stride in every copy (98 delayed ACKs for 96
# strides in each of 12 copies here, idle or with a spinner on the other
# core).  qemu-img convert keeps a READ in flight with the BLOCK_STATUS of
# the next extent, and a reply waits only when it leaves after the
# client's last request arrived: a race, 85 to 96 stalls of 96 idle, 58
# to 98 with the spinner.  Speed tests time qemu_img_dd_tcp.

# Longest a single copy may take: a plain copy of the images the tests
# make takes a few seconds; this bounds a hang, not the speed.
QEMU_TCP_COPY_TIMEOUT=${QEMU_TCP_COPY_TIMEOUT:-120}

# The default stride of make_sparse_image, and qemu_img_dd_tcp's READ.
SPARSE_STRIDE_KIB=128

# A raw image of MIB MiB, all hole except a data extent of EXTENT_KIB
# (default 4) random bytes every STRIDE_KIB (default SPARSE_STRIDE_KIB):
# one data/hole boundary, so one Nagle stall, per stride.
make_sparse_image () {
  local file=$1 mib=$2 stride=${3:-$SPARSE_STRIDE_KIB} extent=${4:-4}
  python3 - "$file" "$mib" "$stride" "$extent" <<'EOF'
import os, sys
path, mib, stride, extent = sys.argv[1], *map(int, sys.argv[2:])
with open(path, "wb") as f:
    f.truncate(mib << 20)
    for off in range(0, mib << 20, stride << 10):
        os.pwrite(f.fileno(), os.urandom(extent << 10), off)
EOF
}

# An ext4 file system of MIB MiB holding about DATA_MIB MiB of random
# files of mixed sizes, made with mkfs.ext4 -d (no mount), as a qcow2
# image FILE; the raw image it came from stays beside it as FILE.raw.
make_fs_image () {
  local file=$1 mib=$2 data=$3 tree=$1.tree
  requires qemu-img
  qt_require_mkfs
  mkdir -p "$tree"
  python3 - "$tree" "$data" <<'EOF'
import os, sys
tree, left = sys.argv[1], int(sys.argv[2]) << 20
n = 0
while left > 0 and n < 100000:
    # 1 KiB to 512 KiB, a spread of sizes like a documentation tree's.
    size = min(left, 1024 << (n % 10))
    sub = os.path.join(tree, "d%02d" % (n % 37))
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, "f%05d" % n), "wb") as f:
        f.write(os.urandom(size))
    left -= size
    n += 1
EOF
  "$QT_MKFS" -q -F -d "$tree" "$file.raw" "${mib}M" ||
    fail "mkfs.ext4 -d failed"
  qemu-img convert -q -f raw -O qcow2 "$file.raw" "$file"
  rm -rf "$tree"
}

# mkfs.ext4 lives in /usr/sbin, which a non-root PATH may lack.
qt_require_mkfs () {
  QT_MKFS=$(PATH=$PATH:/usr/sbin:/sbin command -v mkfs.ext4) ||
    sb_skip "needs mkfs.ext4, not installed (tests/install-deps installs e2fsprogs as root)"
}

# A CA, a server certificate for 127.0.0.1 and a client certificate in
# DIR, named as qemu's tls-creds-x509 object, nbdkit --tls-certificates
# and libnbd's tls-certificates expect.
make_tls_certs () {
  local dir=$1 who
  requires openssl
  mkdir -p "$dir"
  # The CA's extensions from a configuration of our own: OpenSSL 1.1.1
  # (Debian 11) adds -addext's to those of the system's openssl.cnf,
  # which gives two basicConstraints, and GnuTLS refuses such a CA.
  printf '%s\n' '[req]' 'distinguished_name = dn' 'x509_extensions = ca' '[dn]' \
    '[ca]' basicConstraints=critical,CA:TRUE keyUsage=critical,keyCertSign,cRLSign \
    subjectKeyIdentifier=hash > "$dir/ca.cnf"
  qt_openssl req -config "$dir/ca.cnf" -x509 -newkey ec \
    -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=sockboost-test-ca \
    -keyout "$dir/ca-key.pem" -out "$dir/ca-cert.pem"
  rm -f "$dir/ca.cnf"
  # A request, then signed by the CA with x509 -req: OpenSSL 1.1.1 has
  # no req -CA.  QEMU 5.2 refuses a certificate whose key usage lacks
  # keyEncipherment, even for an EC key.
  for who in server client; do
    qt_openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
      -nodes -subj "/CN=sockboost-test-$who" \
      -keyout "$dir/$who-key.pem" -out "$dir/$who.csr"
    printf '%s\n' basicConstraints=critical,CA:FALSE \
      keyUsage=critical,digitalSignature,keyEncipherment "extendedKeyUsage=${who}Auth" \
      subjectAltName=IP:127.0.0.1,DNS:localhost > "$dir/$who.ext"
    qt_openssl x509 -req -in "$dir/$who.csr" -days 2 -set_serial "$((RANDOM + 1))" \
      -CA "$dir/ca-cert.pem" -CAkey "$dir/ca-key.pem" \
      -extfile "$dir/$who.ext" -out "$dir/$who-cert.pem"
    rm -f "$dir/$who.csr" "$dir/$who.ext"
  done
}

qt_openssl () {
  local err
  err=$(openssl "$@" 2>&1 >/dev/null) || fail "openssl $1 failed: $err"
}

# From here on, the test's qemu-nbd servers and the clients of their
# exports run in a network namespace of the test's own (loopback up),
# held by a process stopped at teardown: the delayed ACKs counted there
# are the test's alone.  QT_NETNS is the command prefix that enters it.
qt_private_netns () {
  local ready=$BATS_TEST_TMPDIR/netns-ready
  requires unshare nsenter ip
  # fd 3 is bats' own: a process holding it would stall the test run.
  unshare -n -- sh -c 'ip link set lo up && echo up >"$1" && exec sleep 3600' \
    qt-netns "$ready" 3>&- &
  kill_at_teardown "$!"
  wait_for_file "$ready" || fail "no network namespace of the test's own"
  QT_NETNS=(nsenter -t "$!" -n --)
}

# CMD... in the test's network namespace, if it has one (qt_private_netns).
qt_netns () {
  ${QT_NETNS[@]+"${QT_NETNS[@]}"} "$@"
}

# Serve FILE read-only with qemu-nbd on a kernel-chosen port of 127.0.0.1:
# plain, or with --boosted under `sockboost run`; with --tls DIR, TLS only
# (certificates from make_tls_certs).  Waits (bounded) for the listening
# socket; sets QEMU_TCP_PID and QEMU_TCP_PORT; stopped at teardown.
start_qemu_nbd_tcp () {
  local wrapper=() tls=() format=raw
  while [ $# -gt 1 ]; do
    case $1 in
      --boosted) wrapper=("$SOCKBOOST" run --) ;;
      --tls) tls=(--object "tls-creds-x509,id=tls0,dir=$2,endpoint=server"
                  --tls-creds tls0); shift ;;
      --format) format=$2; shift ;;
      *) break ;;
    esac
    shift
  done
  local file=$1 log=$BATS_TEST_TMPDIR/qemu-nbd-tcp.$RANDOM.log
  requires qemu-nbd ss
  # fd 3 is bats' own: a server holding it would stall the test run.
  # Not through qt_netns: a function run in the background is a shell of
  # its own, and QEMU_TCP_PID must be qemu-nbd's (nsenter execs it).
  ${QT_NETNS[@]+"${QT_NETNS[@]}"} ${wrapper[@]+"${wrapper[@]}"} qemu-nbd \
    -r -t -f "$format" -b 127.0.0.1 -p 0 ${tls[@]+"${tls[@]}"} "$file" \
    2>"$log" 3>&- &
  QEMU_TCP_PID=$!
  kill_at_teardown "$QEMU_TCP_PID"
  qt_wait_for_listener "$QEMU_TCP_PID" "$log"
}

# Set QEMU_TCP_PORT to the port PID listens on, waiting up to 30 s (TLS
# start-up took over 10 s at a load of 14 on 2 cores).
qt_wait_for_listener () {
  local pid=$1 log=$2 deadline=$((SECONDS + 30))
  QEMU_TCP_PORT=
  until [ -n "$QEMU_TCP_PORT" ]; do
    kill -0 "$pid" 2>/dev/null ||
      fail "qemu-nbd exited before listening: $(cat "$log")"
    [ $SECONDS -lt $deadline ] || fail "qemu-nbd did not listen within 30 s"
    sleep 0.02
    QEMU_TCP_PORT=$(qt_netns ss -Htlnp 2>/dev/null | awk -v pid="pid=$pid," '
      index($0, pid) { n = split($4, a, ":"); print a[n]; exit }')
  done
}

# Copy the export on 127.0.0.1:PORT to the raw file OUT with qemu-img
# convert, over TLS with certificates from TLS_DIR if given.
qemu_img_copy_tcp () {
  local port=$1 out=$2 tls=${3:-}
  local source=(-f raw "nbd://127.0.0.1:$port/")
  if [ -n "$tls" ]; then
    source=(--object "tls-creds-x509,id=tls0,dir=$tls,endpoint=client"
            --image-opts "driver=nbd,host=127.0.0.1,port=$port,tls-creds=tls0")
  fi
  rm -f "$out"
  qt_netns timeout "$QEMU_TCP_COPY_TIMEOUT" qemu-img convert "${source[@]}" -O raw "$out"
}

# Copy the export on 127.0.0.1:PORT to the raw file OUT with qemu-img dd,
# one READ of SPARSE_STRIDE_KIB at a time: every stride of a sparse image
# stalls before qemu-nbd 8.0 (top of this file).
qemu_img_dd_tcp () {
  rm -f "$2"
  qt_netns timeout "$QEMU_TCP_COPY_TIMEOUT" qemu-img dd -f raw -O raw \
    "bs=${SPARSE_STRIDE_KIB}k" "if=nbd://127.0.0.1:$1/" "of=$2"
}

# Copy the export on 127.0.0.1:PORT to OUT with nbdcopy (libnbd).
nbdcopy_tcp () {
  local port=$1 out=$2 tls=${3:-} uri
  requires nbdcopy
  uri=nbd://127.0.0.1:$port/
  [ -z "$tls" ] || uri=nbds://127.0.0.1:$port/?tls-certificates=$tls
  rm -f "$out"
  truncate -s 0 "$out"
  # One connection: qemu-nbd 5.2 advertises multi-conn on a read-only
  # export yet serves one client at a time (no -e), so the extra
  # connections of nbdcopy 1.6 would wait forever; 7.2 advertises none.
  qt_netns timeout "$QEMU_TCP_COPY_TIMEOUT" nbdcopy --connections 1 "$uri" "$out"
}

# The delayed ACKs sent so far in the network namespace CMD... runs in
# (lv_netns, qt_netns; ours without one): each is a segment that waited
# for the receiver's delayed-ACK timer, as a Nagle stall does.
delayed_acks () {
  "$@" awk '$1 == "TcpExt:" && !names++ { split($0, name); next }
    $1 == "TcpExt:" { for (i = 2; i <= NF; i++) if (name[i] == "DelayedACKs") print $i }' \
    /proc/net/netstat
}

# The copies timed into the array named VAR, for a test's report: their
# seconds and the delayed ACKs each took (the array VAR_ACKS).
times_and_acks () {
  local -n qt_times=$1 qt_acks=${1}_ACKS
  echo "${qt_times[*]} s (delayed ACKs: ${qt_acks[*]})"
}

# Run CMD...; set the variable named VAR to its wall time in seconds.
# Returns CMD's status.
time_command () {
  local -n qt_seconds=$1
  shift
  local start=$EPOCHREALTIME status=0
  "$@" || status=$?
  qt_seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  return $status
}

median_of () {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The smallest of the numbers "$@": where a stall is a floor that no
# round can beat and load on a shared machine only ever adds time, the
# fastest round of each side is the fair comparison.
fastest_of () {
  printf '%s\n' "$@" | sort -g | head -n 1
}

# Fail unless SLOW seconds are at least FACTOR times FAST seconds.
assert_speedup () {
  local slow=$1 fast=$2 factor=$3
  awk -v s="$slow" -v f="$fast" -v k="$factor" 'BEGIN { exit !(s >= k * f) }' ||
    fail "wanted at least ${factor}x: $slow s plain against $fast s boosted"
}

# Before qemu-nbd 8.0: fail unless BOOSTED seconds are at least FACTOR
# times faster than PLAIN.  From 8.0 on: unless they stay within 3x of
# each other either way (a stall, QEMU's or one the library added, would
# be 10x or more).
assert_tcp_gain () {
  local plain=$1 boosted=$2 factor=$3
  if qemu_at_least 8.0; then
    awk -v p="$plain" -v b="$boosted" 'BEGIN { exit !(b <= 3 * p && p <= 3 * b) }' ||
      fail "qemu-nbd $QEMU_VERSION corks itself: wanted plain and boosted within 3x: $plain s plain, $boosted s boosted"
  else
    assert_speedup "$plain" "$boosted" "$factor"
  fi
}

# How many interleaved rounds to time, at least MIN (default 1): 1 where
# a plain copy stalls for seconds (qemu-nbd before 8.0), 5 where copies
# take milliseconds and only medians compare.
tcp_rounds () {
  local n=1 min=${1:-1}
  qemu_at_least 8.0 && n=5
  echo $((n > min ? n : min))
}

# Copy the exports on PLAIN_PORT and BOOSTED_PORT in turn, ROUNDS times,
# with COPY PORT OUT ARG... (qemu_img_dd_tcp, nbdcopy_tcp...); check each
# copy against EXPECTED with cmp; set the arrays PLAIN_TIMES and
# BOOSTED_TIMES to the seconds each took, PLAIN_TIMES_ACKS and
# BOOSTED_TIMES_ACKS to the delayed ACKs (qt_private_netns: the copy's).
time_copies () {
  local rounds=$1 expected=$2 plain_port=$3 boosted_port=$4 round
  shift 4
  PLAIN_TIMES=() BOOSTED_TIMES=() PLAIN_TIMES_ACKS=() BOOSTED_TIMES_ACKS=()
  for ((round = 0; round < rounds; round++)); do
    time_copy PLAIN_TIMES qt_netns "$expected" "$plain_port" \
      "$BATS_TEST_TMPDIR/plain.img" "$@" || return 1
    time_copy BOOSTED_TIMES qt_netns "$expected" "$boosted_port" \
      "$BATS_TEST_TMPDIR/boosted.img" "$@" || return 1
  done
}

# One timed copy: COPY PORT OUT ARG..., whose client runs in the network
# namespace NETNS (qt_netns, lv_netns) enters; OUT checked against
# EXPECTED with cmp.  Its seconds appended to the array named VAR, the
# delayed ACKs sent meanwhile in NETNS's namespace to VAR_ACKS.
time_copy () {
  local -n tc_times=$1 tc_acks=${1}_ACKS
  local netns=$2 expected=$3 port=$4 out=$5 t acks
  shift 5
  acks=$(delayed_acks "$netns")
  time_command t "$1" "$port" "$out" "${@:2}" || return 1
  tc_acks+=("$(($(delayed_acks "$netns") - acks))")
  cmp "$expected" "$out" || return 1
  tc_times+=("$t")
}
