#!/usr/bin/env bats
# A read reply leaves in one sendmsg (header and data together, straight
# from the backend); --split-replies makes it two plain write()s instead,
# as a naive server would.
# bats file_tags=sanitize

load helpers

setup () { requires strace qemu-io; }

# Trace the server's sends while qemu-io reads 8 x 1 MiB.  -ff writes one
# log per thread, so calls of different threads never interleave; the
# connection thread's log is the one that sent the greeting.  Prints its path.
trace_reads () {
  local prefix=$BATS_TEST_TMPDIR/strace
  strace -ff -qq -e trace=sendmsg,sendto,write,writev -e signal=none \
    -o "$prefix" "$SBNBD_SERVER" -U - "$@" --run \
    'qemu-io -f raw -c "readv -q 0 1M" -c "readv -q 1M 1M" -c "readv -q 2M 1M" \
       -c "readv -q 3M 1M" -c "readv -q 4M 1M" -c "readv -q 5M 1M" \
       -c "readv -q 6M 1M" -c "readv -q 7M 1M" "$uri" >/dev/null' pattern:8M
  grep -l 'NBDMAGICIHAVEOPT' "$prefix".*
}
@test "read replies: one sendmsg of header + 1 MiB each" {
  local log
  log=$(trace_reads)
  # 16-byte simple header or 20+8-byte structured chunk header, then data.
  run grep -cE 'sendmsg\([0-9]+, \{msg_name=NULL, msg_namelen=0, msg_iov=\[\{iov_base=.*, iov_len=(16|28)\}, \{iov_base=.*, iov_len=1048576\}\], msg_iovlen=2.* = (1048592|1048604)$' "$log"
  assert_output 8
  run grep -cE '^write\([0-9]+, .*, 1048576\)' "$log"
  assert_output 0
}

@test "--split-replies: header and data in two write() calls, no MSG_MORE" {
  local log
  log=$(trace_reads --split-replies)
  run grep -cE '^write\([0-9]+, .*, (16|28)\) += (16|28)$' "$log"
  [ "$output" -ge 8 ]
  run grep -cE '^write\([0-9]+, .*, 1048576\) += 1048576$' "$log"
  assert_output 8
  run grep -c 'MSG_MORE' "$log"
  assert_output 0
}

@test "a read across holes: hole, data and hole chunks in one sendmsg, data straight from the buffer" {
  local disk=$BATS_TEST_TMPDIR/disk prefix=$BATS_TEST_TMPDIR/strace log
  truncate -s 8M "$disk"
  head -c 256K /dev/urandom | dd of="$disk" bs=256K seek=5 conv=notrunc status=none
  strace -ff -qq -e trace=sendmsg,sendto,write,writev -e signal=none \
    -o "$prefix" "$SBNBD_SERVER" -U - --run \
    'qemu-io -f raw -c "readv -q 1M 1M" "$uri" >/dev/null' "$disk"
  log=$(grep -l 'NBDMAGICIHAVEOPT' "$prefix".*)
  # 20-byte chunk headers: hole (+12), data (+8) with 256 KiB, hole (+12).
  run grep -cE 'msg_iov=\[\{iov_base=.*, iov_len=32\}, \{iov_base=.*, iov_len=28\}, \{iov_base=.*, iov_len=262144\}, \{iov_base=.*, iov_len=32\}\], msg_iovlen=4.* = 262236$' "$log"
  assert_output 1
}
