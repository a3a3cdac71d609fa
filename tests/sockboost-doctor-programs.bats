#!/usr/bin/env bats
# sockboost doctor lists the NBD programs on PATH with their versions and
# what the library changes for each, by version: this machine's programs
# (one claim checked from outside with strace), and fake programs that
# print the versions of the newer thresholds; run as root, none that
# others may have written (sockboostlib/trust.py).
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires jq ss
}

# doctor --json's entry for PROGRAM, as "version|unix|tcp".
program_entry () {
  jq -r --arg p "$1" '.programs[] | select(.name == $p) | "\(.version)|\(.unix)|\(.tcp)"' <<<"$2"
}

# A program NAME in the fake bin directory that prints TEXT for its version.
fake_program () {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\nprintf "%%s\\n" "%s"\n' "$2" >"$BATS_TEST_TMPDIR/bin/$1"
  chmod +x "$BATS_TEST_TMPDIR/bin/$1"
}

doctor_json_with_fakes () {
  PATH=$BATS_TEST_TMPDIR/bin:$PATH "$SOCKBOOST" doctor --json
}

@test "this machine's NBD programs are listed with the versions they print" {
  run "$SOCKBOOST" doctor --json
  assert_success
  local json=$output name kind path version
  # The programs of the table known by one name (not qemu-system-*).
  while IFS=$'\t' read -r _ name kind; do
    [[ $name != *"*" ]] || continue
    if path=$(type -P "$name"); then
      case $kind in
        nbd-server) version=$("$path" -V 2>&1) ;;
        libnbd) version=$("$path" --version | grep '^libnbd') ;;
        *) version=$("$path" --version | head -1) ;;
      esac
      version=$(grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' <<<"$version" | head -1)
      run program_entry "$name" "$json"
      assert_output --regexp "^$version\|"
    else
      jq -e --arg p "$name" '.missing_programs | index($p)' <<<"$json"
    fi
  done < <("$SB_BUILD/tools/sb-config" --programs)
  run "$SOCKBOOST" doctor
  assert_success
  assert_output --partial "NBD programs on PATH, and what the library changes for each:"
}

@test "qemu-nbd's TCP claim is what strace shows" {
  requires qemu-nbd strace nbdinfo
  run "$SOCKBOOST" doctor --json
  local tcp
  tcp=$(program_entry qemu-nbd "$output" | cut -d'|' -f3)
  head -c 1M /dev/urandom >"$BATS_TEST_TMPDIR/disk.img"
  # Which accepted sockets get TCP_NODELAY, plain and under the library.
  local mode port nodelay=()
  for mode in plain boosted; do
    port=$(free_tcp_port)
    local wrapper=()
    [ $mode = plain ] || wrapper=("$SOCKBOOST" run --)
    strace -f -o "$BATS_TEST_TMPDIR/$mode.trace" -e trace=accept4,setsockopt \
      "${wrapper[@]}" qemu-nbd -r -t -f raw -b 127.0.0.1 -p "$port" \
      --pid-file "$BATS_TEST_TMPDIR/$mode.pid" "$BATS_TEST_TMPDIR/disk.img" 3>&- &
    kill_at_teardown $!
    wait_for_file "$BATS_TEST_TMPDIR/$mode.pid"
    timeout 20 nbdinfo --size "nbd://127.0.0.1:$port" >/dev/null
    kill "$(cat "$BATS_TEST_TMPDIR/$mode.pid")"
    wait $! || true
    local fd
    fd=$(sed -n 's/.*accept4(.*AF_INET.*) = \([0-9]*\)$/\1/p' "$BATS_TEST_TMPDIR/$mode.trace" | head -1)
    [ -n "$fd" ] || fail "no accept in the $mode trace"
    nodelay+=("$(grep -c "setsockopt($fd, SOL_TCP, TCP_NODELAY, \[1\]" "$BATS_TEST_TMPDIR/$mode.trace" || true)")
  done
  if [[ $tcp == "sets TCP_NODELAY on the sockets it accepts"* ]]; then
    assert_equal "${nodelay[*]}" "0 1"
  else
    [ "${nodelay[0]}" -gt 0 ] || fail "doctor says '$tcp' but plain qemu-nbd sets no TCP_NODELAY"
  fi
}

@test "qemu-storage-daemon's TCP claim is what strace shows" {
  requires qemu-storage-daemon strace nbdinfo
  run "$SOCKBOOST" doctor --json
  local tcp
  tcp=$(program_entry qemu-storage-daemon "$output" | cut -d'|' -f3)
  truncate -s 1M "$BATS_TEST_TMPDIR/disk.img"
  # Which accepted sockets get TCP_NODELAY, plain and under the library.
  local mode port nodelay=() fd
  for mode in plain boosted; do
    port=$(free_tcp_port)
    local wrapper=()
    [ $mode = plain ] || wrapper=("$SOCKBOOST" run --)
    strace -f -o "$BATS_TEST_TMPDIR/$mode.trace" -e trace=accept4,setsockopt \
      "${wrapper[@]}" qemu-storage-daemon \
      --blockdev "driver=file,node-name=disk,filename=$BATS_TEST_TMPDIR/disk.img" \
      --nbd-server "addr.type=inet,addr.host=127.0.0.1,addr.port=$port" \
      --export type=nbd,id=export,node-name=disk,name=disk \
      --pidfile "$BATS_TEST_TMPDIR/$mode.pid" 3>&- &
    kill_at_teardown $!
    wait_for_file "$BATS_TEST_TMPDIR/$mode.pid"
    timeout 20 nbdinfo --size "nbd://127.0.0.1:$port/disk" >/dev/null
    kill "$(cat "$BATS_TEST_TMPDIR/$mode.pid")"
    wait $! || true
    fd=$(sed -n 's/.*accept4(.*AF_INET.*) = \([0-9]*\)$/\1/p' "$BATS_TEST_TMPDIR/$mode.trace" | head -1)
    [ -n "$fd" ] || fail "no accept in the $mode trace"
    nodelay+=("$(grep -c "setsockopt($fd, SOL_TCP, TCP_NODELAY, \[1\]" "$BATS_TEST_TMPDIR/$mode.trace" || true)")
  done
  if [[ $tcp == "sets TCP_NODELAY on the NBD sockets its server accepts"* ]]; then
    assert_equal "${nodelay[*]}" "0 1"
  else
    [ "${nodelay[0]}" -gt 0 ] || fail "doctor says '$tcp' but plain qemu-storage-daemon sets no TCP_NODELAY"
  fi
}

@test "qemu-storage-daemon serves as QEMU does; nbd-client sets TCP_NODELAY itself" {
  fake_program qemu-storage-daemon "qemu-storage-daemon version 7.2.0 (fake)"
  fake_program nbd-client "This is nbd-client, from nbd 3.24"
  run doctor_json_with_fakes
  assert_success
  local json=$output
  run program_entry qemu-storage-daemon "$json"
  assert_output --regexp "^7\.2\.0\|raises the send buffer to tb $BOOSTED_TB: QEMU before 10\.1 leaves the default\|sets TCP_NODELAY on the NBD sockets its server accepts: .*; nothing for its NBD client, which sets TCP_NODELAY itself$"
  run program_entry nbd-client "$json"
  assert_output "3.24|raises the send buffer to tb $BOOSTED_TB: nbd-client leaves the default, and the kernel's NBD client sends on that socket|nothing: nbd-client sets TCP_NODELAY itself"
}

@test "newer QEMU: 8.0 corks its replies, 10.1 sets its own unix buffers" {
  fake_program qemu-nbd "qemu-nbd 8.2.0 (fake)"
  fake_program qemu-img "qemu-img version 10.1.0 (fake)"
  run doctor_json_with_fakes
  assert_success
  local json=$output
  run program_entry qemu-nbd "$json"
  assert_output "8.2.0|raises the send buffer to tb $BOOSTED_TB: QEMU before 10.1 leaves the default|nothing: QEMU 8.0 and later cork each reply themselves (10.0 and 11.1 also set TCP_NODELAY)"
  run program_entry qemu-img "$json"
  assert_output --regexp "^10\.1\.0\|nothing: QEMU 10\.1 and later set 2 MiB themselves.*\|nothing: it sets TCP_NODELAY and corks its requests itself$"
}

@test "QEMU's system emulators: the NBD server as qemu-nbd's; the client sets TCP_NODELAY" {
  fake_program qemu-system-x86_64 "QEMU emulator version 7.2.0 (fake)"
  fake_program qemu-system-aarch64 "QEMU emulator version 10.1.0 (fake)"
  run doctor_json_with_fakes
  assert_success
  local json=$output client="; nothing for its NBD client, which sets TCP_NODELAY itself"
  run program_entry qemu-system-x86_64 "$json"
  assert_output "7.2.0|raises the send buffer to tb $BOOSTED_TB: QEMU before 10.1 leaves the default|sets TCP_NODELAY on the NBD sockets its server accepts: QEMU before 8.0 leaves Nagle on, so each small reply chunk waits for the client's delayed ACK (about 40 ms)$client"
  run program_entry qemu-system-aarch64 "$json"
  assert_output --regexp "^10\.1\.0\|nothing: QEMU 10\.1 and later set 2 MiB themselves.*\|nothing: QEMU 8\.0 and later cork each reply themselves.*$client\$"
  SOCKBOOST_NODELAY=0 run doctor_json_with_fakes
  run program_entry qemu-system-x86_64 "$output"
  assert_output --regexp "\|nothing, as SOCKBOOST_NODELAY=0 asks: QEMU before 8\.0 leaves Nagle on for the NBD sockets its server accepts$client\$"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$SOCKBOOST" doctor
  assert_line "    qemu-system-x86_64 7.2.0 ($BATS_TEST_TMPDIR/bin/qemu-system-x86_64)"
}

@test "QEMU before 8.0 gets TCP_NODELAY, unless SOCKBOOST_NODELAY=0" {
  fake_program qemu-nbd "qemu-nbd 7.1.0 (fake)"
  run doctor_json_with_fakes
  run program_entry qemu-nbd "$output"
  assert_output --regexp "\|sets TCP_NODELAY on the sockets it accepts: QEMU before 8\.0 leaves Nagle on"
  SOCKBOOST_NODELAY=0 run doctor_json_with_fakes
  run program_entry qemu-nbd "$output"
  assert_output --regexp "\|nothing, as SOCKBOOST_NODELAY=0 asks: "
}

@test "libnbd 1.24 sets its own unix buffers; 1.23 was not checked" {
  fake_program nbdcopy $'nbdcopy 1.24.4\nlibnbd 1.24.4'
  fake_program nbdinfo $'nbdinfo 1.23.3\nlibnbd 1.23.3'
  run doctor_json_with_fakes
  local json=$output
  run program_entry nbdcopy "$json"
  assert_output "1.24.4|nothing: libnbd 1.24 and later set 2 MiB themselves|nothing: libnbd sets TCP_NODELAY and passes MSG_MORE itself"
  run program_entry nbdinfo "$json"
  assert_output --regexp "^1\.23\.3\|not checked for libnbd 1\.23\.3 "
  # A request above 2 MiB still raises libnbd's own.
  SOCKBOOST_SNDBUF=3M run doctor_json_with_fakes
  run program_entry nbdcopy "$output"
  assert_output --regexp "^1\.24\.4\|raises the send buffer to tb $((6 << 20)): libnbd 1\.24 and later set 2 MiB themselves, before connecting\|"
}

@test "nbdkit and nbd-server of other versions; corking off; no unix boost when off" {
  fake_program nbdkit "nbdkit 1.48.1"
  fake_program nbd-server "This is nbd-server version 3.26"
  SOCKBOOST_SNDBUF=off SOCKBOOST_CORK=off run doctor_json_with_fakes
  local json=$output
  run program_entry nbdkit "$json"
  assert_output "1.48.1|nothing: SOCKBOOST_SNDBUF is off: nbdkit leaves the default|nothing: nbdkit sets TCP_NODELAY and passes MSG_MORE itself"
  run program_entry nbd-server "$json"
  assert_output --regexp "^3\.26\|.*\|nothing, as SOCKBOOST_CORK=off asks: .* \(as checked on 3\.24\)$"
}

@test "a program that prints no version, and one that is missing" {
  fake_program nbdkit "no version here"
  mkdir -p "$BATS_TEST_TMPDIR/nopath"
  local tool
  # A PATH without nbd-server: only the tools doctor itself needs.
  for tool in bash ss sed readlink; do
    ln -sf "$(type -P "$tool")" "$BATS_TEST_TMPDIR/nopath/$tool" 2>/dev/null || true
  done
  # The interpreter itself, not a shim that needs a PATH of its own.
  ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$BATS_TEST_TMPDIR/nopath/python3"
  run env PATH="$BATS_TEST_TMPDIR/bin:$BATS_TEST_TMPDIR/nopath" "$SOCKBOOST" doctor --json
  assert_success
  local json=$output
  run program_entry nbdkit "$json"
  assert_output "null|unknown: its version is unknown|unknown: its version is unknown"
  jq -e '.missing_programs | index("nbd-server")' <<<"$json"
  run env PATH="$BATS_TEST_TMPDIR/bin:$BATS_TEST_TMPDIR/nopath" "$SOCKBOOST" doctor
  assert_line --partial "not on PATH: "
  assert_output --partial "nbdkit (version unknown)"
}

@test "a program in a PATH directory others may write is not run, as root" {
  [ "$(id -u)" -eq 0 ] || sb_skip "needs root: the rule is root's"
  # It leaves a mark if it runs.
  fake_program nbdkit "nbdkit 1.48.1"
  printf 'touch "%s/ran"\n' "$BATS_TEST_TMPDIR" >>"$BATS_TEST_TMPDIR/bin/nbdkit"
  chmod 0777 "$BATS_TEST_TMPDIR/bin"
  run doctor_json_with_fakes
  assert_success
  jq -e --arg d "$BATS_TEST_TMPDIR/bin" '.programs[] | select(.name == "nbdkit")
        | .version == null and .version_source == "not run: \($d) may be written by others; no package installed that file"' <<<"$output"
  [ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "doctor ran a program others may have written"
  chmod 0755 "$BATS_TEST_TMPDIR/bin"
  run program_entry nbdkit "$(doctor_json_with_fakes)"
  assert_output --regexp "^1\.48\.1\|"
  [ -e "$BATS_TEST_TMPDIR/ran" ] || fail "the control did not run"
}
