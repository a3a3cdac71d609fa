#!/usr/bin/env bats
# The naive switches do what they say, seen with strace on TCP: by default
# TCP_NODELAY is set and each WRITE leaves in one sendmsg (header and data
# together); --no-nodelay sets no TCP_NODELAY; --split-writes sends the
# 28-byte header and the data in two write() calls.  The client never
# sizes its socket buffers itself (the library's job).

load helpers

setup () {
  requires strace qemu-nbd
  truncate -s 1M "$BATS_TEST_TMPDIR/disk"
  cl_start_qemu_nbd_tcp "$BATS_TEST_TMPDIR/disk"
  URI=nbd://127.0.0.1:$QEMU_PORT/
  TRACE=$BATS_TEST_TMPDIR/trace
}

traced () {
  strace -f -qq -e trace=write,sendmsg,setsockopt -o "$TRACE" \
    "$SBNBD_CLIENT" -q --request-size 4K --length 16K "$@" write pattern "$URI"
}

@test "default: TCP_NODELAY on, header and data in one sendmsg" {
  traced
  run grep -c 'setsockopt(.*TCP_NODELAY, \[1\]' "$TRACE"
  assert_output 1
  run grep -cE 'sendmsg\(.*iov_len=28\}, \{iov_base=.*iov_len=4096\}\], msg_iovlen=2.* = 4124$' "$TRACE"
  assert_output 4
  run grep -cE 'write\([0-9]+, .*, (28|4096)\) = ' "$TRACE"
  assert_output 0
}

@test "--no-nodelay: no TCP_NODELAY" {
  traced --no-nodelay
  run grep -c 'TCP_NODELAY' "$TRACE"
  assert_output 0
  run grep -cE 'sendmsg\(.*msg_iovlen=2.* = 4124$' "$TRACE"
  assert_output 4
}

@test "--split-writes: a 28-byte write() then a 4096-byte write() per request" {
  traced --split-writes
  run grep -cE 'write\([0-9]+, .*, 28\) = 28$' "$TRACE"
  assert_output 4
  run grep -cE 'write\([0-9]+, .*, 4096\) = 4096$' "$TRACE"
  assert_output 4
  run grep -cE 'sendmsg\(.*msg_iovlen=2.* = 4124$' "$TRACE"
  assert_output 0
  run grep -c 'MSG_MORE' "$TRACE"
  assert_output 0
}

@test "never SO_SNDBUF or SO_RCVBUF" {
  traced
  traced --split-writes --no-nodelay
  run grep -cE 'SO_(SND|RCV)BUF' "$TRACE"
  assert_output 0
}
