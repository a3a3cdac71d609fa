#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode matches the process, not the thread: a socket made by a
# thread of its own name in a process the filter names is tuned (QEMU's
# NBD client connects from its thread "nbd-connect" when libvirt turns
# thread names on), and a thread named like an NBD program in a process
# that is not one gets nothing.  The process's name is its thread group
# leader's, as /proc/PID/comm shows it.

load helpers

@test "host mode: a thread nbd-connect of qemu-system-x86 is tuned, a thread qemu-nbd of python3 is not" {
  local unix_tb=$DEFAULT_TB
  hm_setup
  hm_enable | grep -q '^  unix: send buffer' && unix_tb=$BOOSTED_TB
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" \
    --name qemu-system-x86 --thread-name nbd-connect
  assert_success
  echo "qemu-system-x86's thread nbd-connect: $output" >&3
  [ "$(jq -c '[.tcp_nodelay, .unix_sndbuf]' <<<"$output")" = "[[1,1],[$unix_tb,$unix_tb]]" ] ||
    fail "the sockets of qemu-system-x86's thread nbd-connect were not tuned: $output"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" \
    --thread-name qemu-nbd
  assert_success
  echo "python3's thread qemu-nbd: $output" >&3
  [ "$(jq -c '[.tcp_nodelay, .unix_sndbuf]' <<<"$output")" = "[[0,0],[$DEFAULT_TB,$DEFAULT_TB]]" ] ||
    fail "a thread named qemu-nbd in python3 got tuned: $output"
}

@test "host mode without the kernel's BTF: the thread's name, and enable, check and status say so" {
  local unix_tb=$DEFAULT_TB ns_problem enabled
  hm_setup
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  # enable where /sys/kernel/btf is hidden: a private mount namespace.
  run private_mount_ns sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' \
    sh "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  assert_success
  enabled=$output
  grep -q '^  unix: send buffer' <<<"$enabled" && unix_tb=$BOOSTED_TB
  assert_line --regexp "^  names: a process is taken by the name of the thread that binds or connects, not its own \(a thread of QEMU named nbd-connect is not taken\): the kernel has no BTF \(/sys/kernel/btf/vmlinux: No such file or directory; it needs CONFIG_DEBUG_INFO_BTF\)$"
  run hm_host status --json
  assert_success
  [ "$(jq -r .names <<<"$output")" = thread ] || fail "status does not say the thread's names: $output"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" \
    --name qemu-system-x86 --thread-name nbd-connect
  assert_success
  [ "$(jq -c '[.tcp_nodelay, .unix_sndbuf]' <<<"$output")" = "[[0,0],[$DEFAULT_TB,$DEFAULT_TB]]" ] ||
    fail "by the thread's name, qemu-system-x86's thread nbd-connect got tuned: $output"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" \
    --thread-name qemu-nbd
  assert_success
  [ "$(jq -c '[.tcp_nodelay, .unix_sndbuf]' <<<"$output")" = "[[1,1],[$unix_tb,$unix_tb]]" ] ||
    fail "by the thread's name, python3's thread qemu-nbd was not tuned: $output"
}

@test "host mode where libbpf cannot read the kernel's BTF: says so, not that the kernel lacks it" {
  local ns_problem
  hm_setup
  ns_problem=$(mount_ns_problem)
  [ -z "$ns_problem" ] || sb_skip "$ns_problem"
  # A BTF file libbpf refuses, as Debian 11's libbpf 0.3 refuses 6.1's.
  run private_mount_ns sh -c 'mount -t tmpfs none /sys/kernel/btf &&
      head -c 64 /dev/zero >/sys/kernel/btf/vmlinux && exec "$@"' \
    sh "$SOCKBOOST" host check --cgroup "$HM_CGROUP"
  assert_line --regexp "this libbpf cannot read the kernel's BTF \(/sys/kernel/btf/vmlinux: .*; a libbpf older than the kernel may not know the kinds it uses\)"
  refute_output --partial CONFIG_DEBUG_INFO_BTF
}

@test "host mode: QEMU with thread names on (as libvirt starts it) gets its NBD client's unix socket raised" {
  requires qemu-nbd qemu-system-x86_64 ss
  hm_setup
  local enabled img=$BATS_TEST_TMPDIR/disk.img sock=$BATS_TEST_TMPDIR/nbd.sock
  enabled=$(hm_enable)
  grep -q '^  unix: send buffer' <<<"$enabled" ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later): $enabled"
  truncate -s 1M "$img"
  qemu-nbd -r -t -f raw -k "$sock" "$img" 3>&- &
  kill_at_teardown $!
  wait_for_socket "$sock"
  # QEMU's NBD client connects from its thread "nbd-connect".
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" qemu-system-x86_64 -name guest=t,debug-threads=on \
     -nodefaults -display none -machine none \
     -blockdev "driver=nbd,server.type=unix,server.path=$sock,node-name=n0,read-only=on") 3>&- &
  local qemu=$!
  kill_at_teardown "$qemu"
  local deadline=$((SECONDS + 20))
  until [ -n "$(unix_tbs_of_pid "$qemu")" ]; do
    [ $SECONDS -lt $deadline ] || fail "QEMU did not connect within 20 s"
    sleep 0.1
  done
  echo "QEMU's NBD client socket: $(unix_tbs_of_pid "$qemu")" >&3
  [ "$(unix_tbs_of_pid "$qemu")" = "$BOOSTED_TB" ] ||
    fail "QEMU's NBD client socket has $(unix_tbs_of_pid "$qemu"), not $BOOSTED_TB"
}
