#!/usr/bin/env bats
# FLUSH and FUA on a file export, then kill -9 of the server mid-stream:
# every write whose FUA or a later FLUSH was acknowledged is in the file.
# (A process kill keeps the page cache, so this proves the server wrote
# before it acknowledged, not that the disk cache was flushed.)
# bats file_tags=sanitize

load helpers

@test "kill -9 during FUA/FLUSH writes: every acknowledged durable write is in the file" {
  requires python3
  local img=$BATS_TEST_TMPDIR/disk.img log=$BATS_TEST_TMPDIR/durable
  truncate -s 64M "$img"
  start_sbnbd_unix "$img"
  rawnbd_bg "$BATS_TEST_TMPDIR/out" greeting go durable-writes="$log"
  # Let a few hundred writes through, then kill without warning.
  local deadline=$((SECONDS + 30))
  until [ "$(wc -l < "$log" 2>/dev/null || echo 0)" -ge 300 ]; do
    [ $SECONDS -lt $deadline ] || fail "too few acknowledged writes"
    sleep 0.02
  done
  kill -9 "$NBD_PID"
  wait_for_line "$BATS_TEST_TMPDIR/out" "connection lost"
  run python3 - "$img" "$log" <<'PY'
import struct, sys
img = open(sys.argv[1], "rb").read()
acked = [int(l) for l in open(sys.argv[2])]
bad = [i for i in acked
       if img[i * 4096:(i + 1) * 4096] != struct.pack(">Q", i) * 512]
print("%d acknowledged, %d missing %s" % (len(acked), len(bad), bad[:5]))
sys.exit(1 if bad or not acked else 0)
PY
  assert_success
  assert_output --regexp "^[0-9]+ acknowledged, 0 missing"
}
