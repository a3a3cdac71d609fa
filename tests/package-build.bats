#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make deb builds the Debian package (debian/, dpkg-buildpackage in a copy
# of the checkout) without the network and without running the tests;
# lintian finds nothing to warn about; the package puts the commands in
# /usr/bin, the library and its helpers in /usr/lib/TRIPLET/sockboost and
# nothing anywhere that would change the system (no ld.so.preload, no
# service enabled or started, no file in /etc): host mode's unit is
# shipped for the admin to enable.  Installing it is
# tests/package-install.bats.
bats_require_minimum_version 1.5.0
load helpers

setup_file () {
  requires dpkg-buildpackage dh dh_python3 lintian unshare git
  git -C "$SB_ROOT" status --porcelain --ignored > "$BATS_FILE_TMPDIR/tree-before"
  local t0=$SECONDS status=0
  DEB_DIR=$(package_build_once) || status=$?
  echo "$status" > "$BATS_FILE_TMPDIR/status"
  echo "# make deb (or the build of an earlier package test of this run): $((SECONDS - t0)) s, status $status" >&3
  export DEB_DIR
}

setup () {
  DEB=$(package_deb "$DEB_DIR") || {
    tail -n 20 "$DEB_DIR/build.log"
    fail "make deb left no package in $DEB_DIR (status $(cat "$BATS_FILE_TMPDIR/status"))"
  }
  TRIPLET=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
}

@test "make deb builds sockboost_VERSION_ARCH.deb offline, runs no test, leaves the checkout as it was" {
  assert_equal "$(cat "$BATS_FILE_TMPDIR/status")" 0
  assert_equal "${DEB##*/}" "sockboost_$(makefile_version)_$(dpkg --print-architecture).deb"
  run grep -E 'tests/run-tests|bats |check-unit' "$DEB_DIR/build.log"
  assert_failure
  git -C "$SB_ROOT" status --porcelain --ignored | diff "$BATS_FILE_TMPDIR/tree-before" -
}

@test "the package's version is the GNUmakefile's, and its maintainer the changelog's" {
  local version maintainer
  version=$(dpkg-parsechangelog -l "$SB_ROOT/debian/changelog" -S Version)
  maintainer=$(dpkg-parsechangelog -l "$SB_ROOT/debian/changelog" -S Maintainer)
  assert_equal "$version" "$(makefile_version)"
  assert_equal "$(dpkg-deb -f "$DEB" Version)" "$version"
  assert_equal "$(dpkg-deb -f "$DEB" Maintainer)" "$maintainer"
  run sed -n 's/^Maintainer: //p' "$SB_ROOT/debian/control"
  assert_output "$maintainer"
}

@test "lintian reports no error and no warning; every override says why" {
  local report=$BATS_TEST_TMPDIR/lintian f copy
  # lintian warns when run as root: it runs as nobody, on a copy it can
  # read (the test's own directory is closed to others).
  copy=$(mktemp -d /tmp/sb-lintian.XXXXXX)
  cleanup_push "rm -rf '$copy'"
  chmod 0755 "$copy"
  install -m 0644 "$DEB" "$copy/"
  # From the copy's directory: the checkout may be closed to nobody too.
  run env -C "$copy" setpriv --reuid=nobody --regid=nogroup --clear-groups \
    env HOME=/nonexistent lintian --pedantic --display-info "$copy/${DEB##*/}"
  assert_success
  printf "%s\n" "$output" > "$report"
  {
    echo "# $(lintian --version) --pedantic --display-info ${DEB##*/}:" \
      "$(grep -c . "$report") tags (exit status $status)"
    sed -n "s/^./#   &/p" "$report"
  } >&3
  run grep -E '^[EW]: ' "$report"
  assert_failure
  for f in "$SB_ROOT"/debian/*lintian-overrides; do
    [ -e "$f" ] || continue
    # Each override line follows a comment line giving its reason.
    run awk '!/^#/ && NF && prev !~ /^# ./ { print FILENAME ": " $0 } { prev = $0 }' "$f"
    assert_output ""
  done
}

@test "commands in /usr/bin, library and helpers in /usr/lib/TRIPLET/sockboost, man pages compressed" {
  local lib=usr/lib/$TRIPLET/sockboost
  run dpkg-deb -c "$DEB"
  assert_success
  local paths
  paths=$(awk '{ print substr($6, 3) }' <<<"$output")
  for p in usr/bin/sockboost usr/bin/sbnbd-server usr/bin/sbnbd-client \
           "$lib/libsockboost.so" "$lib/sb-attach" "$lib/sb-socketpair-bench" "$lib/bench" \
           "$lib/sb-host" usr/lib/systemd/system/sockboost-host.service \
           "$lib/benchlib/report.py" "$lib/benchlib/bench-throughput.gp" \
           "$lib/commands/doctor.py" "$lib/commands/secure-exec.bash" \
           "$lib/sockboostlib/paths.py" "$lib/sockboostlib/measure/ceiling.py" \
           usr/share/man/man1/sockboost.1.gz \
           usr/share/man/man1/sbnbd-server.1.gz usr/share/man/man1/sbnbd-client.1.gz \
           usr/share/man/man7/libsockboost.7.gz usr/share/doc/sockboost/copyright; do
    grep -qxF "$p" <<<"$paths" || fail "$p is not in the package"
  done
  # The installed sockboost looks for its pieces in that directory.
  dpkg-deb -x "$DEB" "$BATS_TEST_TMPDIR/x"
  run grep -x "PKGLIBDIR='/$lib'" "$BATS_TEST_TMPDIR/x/usr/bin/sockboost"
  assert_success
  # And so does every Python command, through the one module that knows.
  run grep -x "INSTALLED_PKGLIBDIR = \"/$lib\"" "$BATS_TEST_TMPDIR/x/$lib/sockboostlib/paths.py"
  assert_success
  run zgrep -c "/$lib/libsockboost.so" "$BATS_TEST_TMPDIR/x/usr/share/man/man7/libsockboost.7.gz"
  assert_success
  run grep -rlF /usr/local "$BATS_TEST_TMPDIR/x/usr/bin/sockboost" "$BATS_TEST_TMPDIR/x/$lib"
  assert_output ""
}

@test "nothing system-wide: files only under /usr, no conffile, no service enabled, no ld.so.preload" {
  run dpkg-deb -c "$DEB"
  run awk '{ print substr($6, 2) }' <<<"$output"
  run grep -vE '^/$|^/usr(/|$)' <<<"$output"
  assert_output ""
  dpkg-deb -e "$DEB" "$BATS_TEST_TMPDIR/control"
  run ls "$BATS_TEST_TMPDIR/control"
  # Only the scripts that byte-compile bench's python modules and remove
  # the compiled files again.
  assert_output "$(printf '%s\n' control md5sums postinst prerm)"
  run grep -hE 'ld\.so|systemctl|update-rc|invoke-rc|deb-systemd|/etc/' \
    "$BATS_TEST_TMPDIR/control/postinst" "$BATS_TEST_TMPDIR/control/prerm"
  assert_output ""
  run grep -h 'py3compile\|py3clean' "$BATS_TEST_TMPDIR/control/postinst" "$BATS_TEST_TMPDIR/control/prerm"
  assert_success
}

@test "the sockboost-host unit runs the installed sockboost host enable and disable, and is not enabled" {
  dpkg-deb -x "$DEB" "$BATS_TEST_TMPDIR/x"
  local unit=$BATS_TEST_TMPDIR/x/usr/lib/systemd/system/sockboost-host.service
  run grep -E '^(ExecStart|ExecStop|WantedBy)=' "$unit"
  assert_output "$(printf '%s\n' 'ExecStart=/usr/bin/sockboost host enable' \
    'ExecStop=/usr/bin/sockboost host disable' 'WantedBy=multi-user.target')"
  # Nothing enables or starts it: no maintainer script mentions it.
  dpkg-deb -e "$DEB" "$BATS_TEST_TMPDIR/control"
  run grep -l sockboost-host $(ls -d "$BATS_TEST_TMPDIR"/control/{pre,post}{inst,rm} 2>/dev/null)
  assert_output ""
  if command -v systemd-analyze >/dev/null; then
    run systemd-analyze verify "$unit"
    refute_output --partial "$unit"
  fi
}

@test "Depends: the C library and libbpf from shlibs, python3 for the python tools, iproute2 for ss" {
  run dpkg-deb -f "$DEB" Depends
  echo "# Depends: $output" >&3
  assert_output --regexp '(^|, )libc6 \(>= [0-9.]+\)(,|$)'
  # sb-host's, from shlibs too.
  assert_output --regexp '(^|, )libbpf1( \(>= [^)]+\))?(,|$)'
  assert_output --regexp '(^|, )python3(:any)?(,|$)'
  assert_output --regexp '(^|, )iproute2(,|$)'
  # A private python directory: no versioned python3.X of the build host.
  refute_output --regexp 'python3\.[0-9]+'
  run dpkg-deb -f "$DEB" Recommends Pre-Depends
  assert_output ""
}

@test "debian/copyright is DEP-5 and carries LICENSE's text" {
  local c=$SB_ROOT/debian/copyright
  run head -n 1 "$c"
  assert_output "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  # The stand-alone License paragraph, unindented, against LICENSE below
  # its title and copyright line.
  diff <(awk '/^License: Expat$/ { n++ } n == 2 && !/^License:/' "$c" | sed -e 's/^ //' -e 's/^\.$//') \
    <(sed -n '5,$p' "$SB_ROOT/LICENSE")
  run sed -n 's/^Copyright: //p' "$c"
  assert_output "$(sed -n 's/^Copyright (c) //p' "$SB_ROOT/LICENSE")"
}
