#!/usr/bin/env bats
# The framing tracker follows extended headers: a client that has
# negotiated them with qemu-nbd (8.2 and later) over TCP and writes each
# 32-byte request header and its 4 KiB payload in separate send() calls,
# with TCP_NODELAY on, sends about two segments per request; under the
# library the header is corked (MSG_MORE) and each request is one
# segment, which needs the tracker to know where each extended request
# ends.  Counted from outside with ss -ti (data_segs_out) on the live
# socket; what was written is what the image holds.

load ../helpers

WRITER=$BATS_TEST_DIRNAME/ext-split-writer.py
REQUESTS=2000

setup () {
  requires qemu-nbd ss python3 cmp
  qemu_at_least 8.2 || skip "qemu-nbd $QEMU_VERSION has no extended headers (8.2 and later)"
  DISK=$BATS_TEST_TMPDIR/disk.img
  truncate -s $((REQUESTS * 4096)) "$DISK"
  cl_start_qemu_nbd_tcp "$DISK"
}

# Run the writer with ENV..., sample its socket's segments per request
# once it is done, and set RATIO to that times 100.
measure () {
  local d=$BATS_TEST_TMPDIR
  rm -f "$d/quit"
  # fd 3 is bats' own: the client must not hold it.
  env "$@" python3 "$WRITER" "$QEMU_PORT" "$REQUESTS" "$d/expected" "$d/quit" \
    > "$d/writer.out" 2>&1 3>&- &
  local writer=$! deadline=$((SECONDS + 60)) sample
  kill_at_teardown "$writer"
  until grep -qx done "$d/writer.out"; do
    if ! kill -0 "$writer" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      fail "the writer did not finish: $(cat "$d/writer.out")"
    fi
    sleep 0.05
  done
  sample=$(segs_per_message "$QEMU_PORT" $((32 + 4096)))
  touch "$d/quit"
  wait "$writer"
  echo "segments requests: $sample" >&3
  set -- $sample
  RATIO=$((100 * $1 / $2))
  cmp "$d/expected" "$DISK"
}

@test "extended headers, split writes, without the library: about 2 segments per request" {
  measure LD_PRELOAD=
  [ "$RATIO" -ge 180 ]
}

@test "extended headers, split writes, with the library: 1 segment per request" {
  measure LD_PRELOAD="$(preload_value)"
  [ "$RATIO" -le 110 ]
}
