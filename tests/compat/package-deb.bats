#!/usr/bin/env bats
# compat-suites: bullseye
# make deb in Debian 11 (glibc 2.31, libbpf 0.3, clang 11, bpftool 5.10):
# the package builds offline, with host mode, asks the C library for
# nothing newer than the suite's, installs with apt into a copy of the
# suite's root (an
# overlay: the cached chroot is left as it was), and works there:
# sockboost doctor passes, sockboost run -- qemu-nbd gets the boosted
# send buffer (ss), the copy is identical; apt-get purge leaves no file
# of ours.  The tests build on each other, in order.

bats_require_minimum_version 1.5.0
load ../helpers

setup_file () {
  requires dpkg-buildpackage dh git objdump unshare
  DEB_DIR=$BATS_FILE_TMPDIR/deb
  mkdir -p "$DEB_DIR"
  local t0=$SECONDS status=0
  unshare --net -- make -s -C "$SB_ROOT" deb DEB_DIR="$DEB_DIR" > "$DEB_DIR/build.log" 2>&1 ||
    status=$?
  echo "# make deb in $(. /etc/os-release && echo "$PRETTY_NAME"): $((SECONDS - t0)) s, status $status" >&3
  echo "$status" > "$DEB_DIR/status"
  COPY=$BATS_FILE_TMPDIR/copy
  mkdir -p "$COPY/upper" "$COPY/work" "$COPY/root" "$COPY/tmp"
  chmod 1777 "$COPY/tmp"
  export DEB_DIR COPY
}

setup () {
  DEB=$(package_deb "$DEB_DIR") || {
    tail -n 20 "$DEB_DIR/build.log"
    fail "make deb left no package (status $(cat "$DEB_DIR/status"))"
  }
  TRIPLET=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
}

# Run bash -c SCRIPT ARG... as root, with a plain environment (none of
# the tests' SOCKBOOST_LIBRARY, SB_BUILD...), in the copy of this root (COPY/upper
# keeps what the runs change, so that they see each other's work), in
# new mount and pid namespaces; COPY/tmp is its /tmp.  The mounts around
# are private already (tests/compat/enter's namespace), and a chroot's /
# is no mount point whose propagation could be changed.
in_copy () {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
    SB_ROOT="$SB_ROOT" unshare --mount --propagation unchanged -- bash -c '
    set -e
    copy=$1; shift
    mount -t overlay overlay -o "lowerdir=/,upperdir=$copy/upper,workdir=$copy/work" "$copy/root"
    exec unshare --mount --pid --fork --propagation unchanged -- \
      "$SB_ROOT/tests/compat/enter" --tmp "$copy/tmp" "$copy/root" -- /bin/bash -c "$@"' \
    _ "$COPY" "$@"
}

# The newest GLIBC_ version the ELF files under DIR ask for.
newest_glibc_asked () {
  find "$1" -type f -exec sh -c 'objdump -T "$1" 2>/dev/null' _ {} \; |
    grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -Vu | tail -n 1
}

@test "make deb builds the package offline against this glibc, asking for nothing newer" {
  local glibc newest x=$BATS_TEST_TMPDIR/x
  assert_equal "$(cat "$DEB_DIR/status")" 0
  assert_equal "${DEB##*/}" "sockboost_$(makefile_version)_$(dpkg --print-architecture).deb"
  glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
  dpkg-deb -x "$DEB" "$x"
  newest=$(newest_glibc_asked "$x")
  echo "# glibc $glibc; the package's programs ask for GLIBC_$newest at most;" \
    "Depends: $(dpkg-deb -f "$DEB" Depends)" >&3
  [ -n "$newest" ]
  version_at_least "$glibc" "$newest" || fail "GLIBC_$newest asked for, glibc is $glibc"
  run dpkg-deb -f "$DEB" Depends
  assert_output --regexp '(^|, )libc6 \(>= [0-9.]+\)'
  # close_range and closefrom: not in glibc 2.31, so not hooked.
  run nm -D --defined-only "$x/usr/lib/$TRIPLET/sockboost/libsockboost.so"
  assert_output --partial ' T socket'
  refute_output --regexp ' T (close_range|closefrom)$'
}

@test "host mode is in the package, with libbpf 0.3's shared library as a dependency" {
  local x=$BATS_TEST_TMPDIR/x
  dpkg-deb -x "$DEB" "$x"
  [ -x "$x/usr/lib/$TRIPLET/sockboost/sb-host" ]
  [ -f "$x/usr/lib/systemd/system/sockboost-host.service" ] ||
    [ -f "$x/lib/systemd/system/sockboost-host.service" ]
  run dpkg-deb -f "$DEB" Depends
  assert_output --regexp '(^|, )libbpf0 \(>= [^)]+\)(,|$)'
}

@test "apt-get install ./sockboost_*.deb in a copy of this root; doctor finds the library and passes" {
  cp "$DEB" "$COPY/tmp/"
  run in_copy '
    set -e
    cd /tmp
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./sockboost_*.deb > install.log
    dpkg -s sockboost | grep "^Status:"
    sockboost host --help | head -n 1
    sockboost doctor'
  assert_success
  assert_line 'Status: install ok installed'
  assert_line --partial 'Usage: sockboost host enable'
  assert_line --regexp "^  library +/usr/lib/$TRIPLET/sockboost/libsockboost\.so\$"
  assert_line --regexp '^  library loads +yes'
  assert_line --regexp '^  self-test +PASS'
}

@test "the installed sockboost run -- qemu-nbd: ss shows the boosted send buffer, the copy is identical" {
  run in_copy '
    set -e
    cd /tmp
    qemu-img create -q -f raw disk.img 64M
    qemu-io -f raw -c "write -P 0xa5 0 32M" disk.img > /dev/null
    sockboost run -- qemu-nbd --fork --pid-file=/tmp/qemu-nbd.pid -r -t -f raw \
      -k /tmp/s.sock disk.img
    sockboost run -- qemu-img convert -r 16M -f raw -O raw \
      "nbd+unix:///?socket=/tmp/s.sock" copy.img &
    copy=$!
    line=
    for i in $(seq 100); do
      line=$(ss -xmpn | grep "\"qemu-nbd\",pid=$(cat qemu-nbd.pid)," | grep -m 1 skmem || true)
      [[ $line != *tb4194304* ]] || break
      sleep 0.1
    done
    wait $copy
    kill $(cat qemu-nbd.pid)
    cmp disk.img copy.img
    echo "ss: $line"'
  assert_success
  echo "# $(grep '^ss: ' <<<"$output")" >&3
  assert_line --regexp '^ss: u_str +ESTAB .*users:\(\("qemu-nbd",pid=[0-9]+,fd=[0-9]+\)\) .*skmem:\(.*,tb4194304,'
}

@test "apt-get purge sockboost leaves no file of ours" {
  run in_copy '
    set -e
    dpkg -L sockboost | grep -vx "/\." > /tmp/ours
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q sockboost > /tmp/purge.log
    dpkg -s sockboost > /dev/null 2>&1 || echo "dpkg: not installed"
    # A directory may stay when it holds what others installed: with a
    # merged /usr, Debian 11 knows /usr/lib/systemd/system by its /lib
    # name, which dpkg -S does not take for it.
    while read -r p; do
      [ -e "$p" ] || continue
      [ -d "$p" ] && { dpkg -S "$p" > /dev/null 2>&1 || [ -n "$(ls -A "$p")" ]; } ||
        echo "left: $p"
    done < /tmp/ours'
  assert_success
  assert_output 'dpkg: not installed'
}
