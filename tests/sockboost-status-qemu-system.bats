#!/usr/bin/env bats
# sockboost status on a QEMU system emulator (as libvirt starts one for
# storage migration or a backup pull): the NBD server that QMP's
# nbd-server-start opens, on a unix socket or on 127.0.0.1, its listener
# and the connection of a client, with the emulator's version and what
# the library changes for it.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires qemu-system-x86_64 qemu-img qemu-io ss python3
  qemu-img create -q -f raw "$BATS_TEST_TMPDIR/disk.img" 4M
}

# Run the QMP commands (JSON objects) on QEMU's socket, in order (every
# wait of the QMP client is bounded).
qmp () {
  python3 - "$SB_ROOT/tools" "$@" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
from benchlib.qmp import Qmp
q = Qmp(sys.argv[2])
for c in sys.argv[3:]:
    c = json.loads(c)
    q.command(c["execute"], c.get("arguments"))
q.close()
EOF
}

# Start QEMU under the library, exporting its disk over NBD at ADDRESS
# (a QMP SocketAddress); sets QEMU_PID.
start_qemu_exporting () {
  local address=$1
  "$SOCKBOOST" run -- qemu-system-x86_64 -M none -nodefaults -display none \
    -accel tcg -qmp "unix:$BATS_TEST_TMPDIR/qmp.sock,server=on,wait=off" \
    -blockdev "driver=file,filename=$BATS_TEST_TMPDIR/disk.img,node-name=file0" \
    -blockdev driver=raw,file=file0,node-name=disk0 \
    >"$BATS_TEST_TMPDIR/qemu.log" 2>&1 3>&- &
  QEMU_PID=$!
  kill_at_teardown "$QEMU_PID"
  qmp "$BATS_TEST_TMPDIR/qmp.sock" \
    "{\"execute\": \"nbd-server-start\", \"arguments\": {\"addr\": $address}}" \
    '{"execute": "nbd-server-add", "arguments": {"device": "disk0", "name": "disk0"}}' ||
    fail "QMP failed: $(cat "$BATS_TEST_TMPDIR/qemu.log")"
}

# Wait (bounded) until status shows a connected socket of the NBD server.
wait_for_client () {
  local deadline=$((SECONDS + 10))
  until "$SOCKBOOST" status "$QEMU_PID" | grep -q "ESTAB .*qemu-io $QEMU_IO_PID"; do
    [ $SECONDS -lt $deadline ] || fail "qemu-io never connected: $("$SOCKBOOST" status "$QEMU_PID")"
    sleep 0.1
  done
}

@test "QEMU's NBD server on a unix socket: listener, a client boosted, the version" {
  local nbd=$BATS_TEST_TMPDIR/nbd.sock version
  start_qemu_exporting "{\"type\": \"unix\", \"data\": {\"path\": \"$nbd\"}}"
  start_qemu_io "nbd+unix:///disk0?socket=$nbd" "$BATS_TEST_TMPDIR/io.out"
  wait_for_client
  run "$SOCKBOOST" status "$QEMU_PID"
  assert_success
  version=$(qemu-system-x86_64 --version | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
  assert_output --partial "libsockboost.so: loaded"
  assert_line "  qemu-system-x86_64 $version: what the library changes for it"
  assert_line --regexp "^  [0-9]+ +unix +LISTEN +[0-9]+ +n/a \(listening\) +- +$nbd\$"
  # The library boosted the connection QEMU accepted (before 10.1 QEMU
  # leaves the default; from 10.1 it sets the same 2 MiB itself).
  assert_line --regexp "^  [0-9]+ +unix +ESTAB +$BOOSTED_TB +yes +qemu-io $QEMU_IO_PID +$nbd\$"
  run "$SOCKBOOST" status --json "$QEMU_PID"
  jq -e --arg v "$version" '.program.name == "qemu-system-x86_64" and .program.version == $v
        and (.program.unix | length > 0) and (.program.tcp | test("NBD"))' <<<"$output"
  stop_qemu_io
}

@test "QEMU's NBD server on 127.0.0.1: listener and the client's connection" {
  requires jq
  local port version
  port=$(free_tcp_port)
  start_qemu_exporting "{\"type\": \"inet\", \"data\": {\"host\": \"127.0.0.1\", \"port\": \"$port\"}}"
  start_qemu_io "nbd://127.0.0.1:$port/disk0" "$BATS_TEST_TMPDIR/io.out"
  wait_for_client
  run "$SOCKBOOST" status "$QEMU_PID"
  assert_success
  assert_line --regexp "^  [0-9]+ +tcp +LISTEN +[0-9]+ +n/a \(listening\) +- +127\.0\.0\.1:$port\$"
  assert_line --regexp "^  [0-9]+ +tcp +ESTAB +[0-9]+ +n/a \(autotuned\) +127\.0\.0\.1:[0-9]+ \(qemu-io $QEMU_IO_PID\) +127\.0\.0\.1:$port\$"
  # What the library does there depends on the version, as for qemu-nbd.
  version=$(jq -r .program.version <<<"$("$SOCKBOOST" status --json "$QEMU_PID")")
  if [ "$(printf '%s\n' "$version" 8.0 | sort -V | head -1)" != 8.0 ]; then
    assert_output --regexp "tcp: +sets TCP_NODELAY on the NBD sockets its server accepts"
  else
    assert_output --regexp "tcp: +nothing: QEMU 8\.0 and later"
  fi
  stop_qemu_io
}
