#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The package in a fresh minbase Debian 12 root (tests/helpers-package.bash:
# built once with debootstrap, cached, used through an overlay so that
# every run starts from the same clean root): apt-get install ./sockboost_*.deb
# pulls in what its Depends name and nothing else, and starts or enables
# nothing (host mode's unit stays off);
# sockboost doctor finds the installed library and passes its self-test;
# sockboost run -- qemu-nbd is boosted, as ss shows; apt-get purge leaves
# no file of ours.  The tests build on each other, in order.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  [ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, namespaces)"
  requires debootstrap dpkg-buildpackage unshare flock
  local t0=$SECONDS t1 deb_dir
  deb_dir=$(package_build_once) || { tail -n 20 "$deb_dir/build.log" >&2; return 1; }
  t1=$SECONDS
  package_root_ensure
  echo "# package built (or shared) in $((t1 - t0)) s; Debian 12 root ready in $((SECONDS - t1)) s" \
    "($PACKAGE_ROOT)" >&3
  OVERLAY=$BATS_FILE_TMPDIR/overlay
  mkdir -p "$OVERLAY/tmp"
  install -m 0644 "$(package_deb "$deb_dir")" "$OVERLAY/tmp/"
  export OVERLAY
}

setup () {
  TRIPLET=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
}

# Run bash -c SCRIPT ARG... in the root, with the overlay's state.
in_root () {
  package_root_run "$OVERLAY" "$@"
}

# The files of the root, sorted, without the kernel's and the test's own.
LIST_FILES='find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp \) -prune -o -print | sort'

@test "apt-get install ./sockboost_*.deb pulls in what its Depends name (and what they recommend), nothing more, and starts nothing" {
  run in_root "
    set -e
    cd /tmp
    dpkg-query -W -f '\${Package}\n' | sort > before-packages
    $LIST_FILES > before-files
    # Nothing stops a service from starting: invoke-rc.d would run it.
    rm -f /usr/sbin/policy-rc.d
    # With Recommends, as apt installs by default (the root's apt.conf
    # says otherwise).
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \\
      -o APT::Install-Recommends=true ./sockboost_*.deb > install.log
    dpkg-query -W -f '\${Package}\n' | sort > after-packages
    dpkg-query -W -f \"\$1\" | awk -v recommends=1 \"\$2\" | sort > pulled-closure
    dpkg-query -W -f \"\$1\" | awk -v recommends=0 \"\$2\" | sort > depends-closure
    # The processes of this pid namespace, by name.
    for p in /proc/[0-9]*; do cat \$p/comm; done > processes
    ls /etc/ld.so.preload 2>&1 || true" _ "$INSTALLED_FORMAT" "$DEPENDS_CLOSURE_AWK"
  assert_success
  assert_output --partial "No such file"
  local pulled expected depends
  pulled=$(comm -13 "$OVERLAY/tmp/before-packages" "$OVERLAY/tmp/after-packages")
  expected=$(comm -13 "$OVERLAY/tmp/before-packages" "$OVERLAY/tmp/pulled-closure")
  depends=$(comm -13 "$OVERLAY/tmp/before-packages" "$OVERLAY/tmp/depends-closure")
  {
    echo "# Depends: $(dpkg-deb -f "$OVERLAY"/tmp/sockboost_*.deb Depends)"
    echo "# apt-get installed $(wc -l <<<"$pulled") packages: $(wc -l <<<"$depends")" \
      "through Depends:" $depends
    echo "#   and what those recommend:" $(comm -13 <(echo "$depends") <(echo "$pulled"))
  } >&3
  assert_equal "$pulled" "$expected"
  grep -qx sockboost <<<"$pulled"
  grep -qx iproute2 <<<"$pulled"
  grep -qx python3 <<<"$pulled"
  # No process left behind by the installation: only tests/compat/enter
  # and the shell that ran it.
  run sort -u "$OVERLAY/tmp/processes"
  assert_output "$(printf '%s\n' bash enter)"
  # No file of ours outside /usr.
  run in_root 'dpkg -L sockboost | grep -vE "^/usr(/|\$)|^/\.\$"'
  assert_output ""
}

@test "the installed sockboost doctor finds its library and passes its self-test" {
  run in_root 'cd /tmp && sockboost doctor && sockboost bench --help >/dev/null && echo bench-help-ok'
  assert_success
  assert_line --regexp "^  library +/usr/lib/$TRIPLET/sockboost/libsockboost\.so\$"
  assert_line --regexp '^  library loads +yes'
  assert_line --regexp '^  self-test +PASS'
  assert_line bench-help-ok
}

@test "the installed sockboost host runs (libbpf came with it), its unit is not enabled" {
  run in_root 'sockboost host --help | head -n 1 &&
    ls /etc/systemd/system/*.wants/sockboost-host.service 2>&1 || true'
  assert_success
  assert_line --index 0 --partial "Usage: sockboost host enable"
  assert_line --index 1 --partial "No such file or directory"
}

@test "sockboost run -- qemu-nbd there: ss shows the boosted send buffer, the copy is identical" {
  run in_root '
    set -e
    cd /tmp
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-utils > qemu.log
    qemu-img create -q -f raw disk.img 64M
    qemu-io -f raw -c "write -P 0xa5 0 32M" disk.img > /dev/null
    sockboost run -- qemu-nbd --fork --pid-file=/tmp/qemu-nbd.pid -r -t -f raw \
      -k /tmp/s.sock disk.img
    # Rate-limited, so that the copy lasts while ss looks.
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
    cmp disk.img copy.img
    echo "ss: $line"'
  assert_success
  echo "# $(grep '^ss: ' <<<"$output")" >&3
  assert_line --regexp '^ss: u_str +ESTAB .*users:\(\("qemu-nbd",pid=[0-9]+,fd=[0-9]+\)\) .*skmem:\(.*,tb4194304,'
}

@test "apt-get purge sockboost leaves no file of ours" {
  run in_root "
    set -e
    cd /tmp
    dpkg -L sockboost | grep -vx '/\\.' > ours
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q sockboost > purge.log
    dpkg -s sockboost > /dev/null 2>&1 || echo 'dpkg: not installed'
    # What is left of the package's paths: directories other packages own.
    while read -r p; do
      [ -e \"\$p\" ] || continue
      [ -d \"\$p\" ] && dpkg -S \"\$p\" > /dev/null 2>&1 || echo \"left: \$p\"
    done < ours
    # Any file since the installation that names us.
    $LIST_FILES | comm -13 before-files - | grep -i sockboost | sed 's/^/left: /' || true"
  assert_success
  assert_output 'dpkg: not installed'
}
