#!/usr/bin/env bats
# Real programs: qemu-nbd under the library serves a file; qemu-io and
# qemu-img (through 'sockboost run') read it.  Both processes' unix sockets
# have tb 4194304 while they run (ss -xmp), and the copy is intact.

load helpers

setup () {
  requires qemu-nbd qemu-io qemu-img ss cmp
  SOCK=$BATS_TEST_TMPDIR/nbd.sock
  DISK=$BATS_TEST_TMPDIR/disk.img
  head -c 32M /dev/urandom > "$DISK"
  start_bg_boosted "$BATS_TEST_TMPDIR/qemu-nbd.log" SOCKBOOST_DEBUG=2 \
    qemu-nbd -r -t -f raw -k "$SOCK" "$DISK"
  QEMU_NBD=$BG_PID
  wait_for_socket "$SOCK"
}

@test "qemu-nbd and qemu-io both get tb $BOOSTED_TB on their NBD socket" {
  # qemu-io holds the connection while it waits for more commands.
  mkfifo "$BATS_TEST_TMPDIR/cmds"
  # Opened read-write first so that neither end blocks opening it.
  exec 9<> "$BATS_TEST_TMPDIR/cmds"
  cleanup_push "exec 9>&-"
  # Started here rather than by start_bg: a background job's stdin would
  # be /dev/null unless redirected on the job itself.
  env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG=2 \
    qemu-io -r -f raw "nbd+unix:///?socket=$SOCK" \
    < "$BATS_TEST_TMPDIR/cmds" > "$BATS_TEST_TMPDIR/qemu-io.log" 2>&1 9>&- &
  local io=$!
  kill_at_teardown "$io"
  echo "read -v 0 512" >&9
  wait_for_line "$BATS_TEST_TMPDIR/qemu-io.log" 'read 512/512 bytes'
  run unix_tbs_wait "$io" 1
  echo "qemu-io tb: $output" >&3
  assert_line "$BOOSTED_TB"
  run unix_tbs_wait "$QEMU_NBD" 1
  echo "qemu-nbd tb: $output" >&3
  assert_line "$BOOSTED_TB"
  run grep -E "^sockboost\[qemu-nbd $QEMU_NBD\]: fd [0-9]+ unix accept sndbuf $DEFAULT_TB -> $BOOSTED_TB\$" \
    "$BATS_TEST_TMPDIR/qemu-nbd.log"
  assert_success
  run grep -E "^sockboost\[qemu-io $io\]: fd [0-9]+ unix connect sndbuf $DEFAULT_TB -> $BOOSTED_TB\$" \
    "$BATS_TEST_TMPDIR/qemu-io.log"
  assert_success
}

@test "qemu-img convert through 'sockboost run' copies the export intact" {
  [ -x "$SOCKBOOST" ] || fail "tools/sockboost is missing"
  run "$SOCKBOOST" run -- qemu-img convert -f raw -O raw \
    "nbd+unix:///?socket=$SOCK" "$BATS_TEST_TMPDIR/copy.img"
  assert_success
  cmp "$DISK" "$BATS_TEST_TMPDIR/copy.img"
  run grep -c "unix accept sndbuf $DEFAULT_TB -> $BOOSTED_TB" "$BATS_TEST_TMPDIR/qemu-nbd.log"
  assert_output 1
}
