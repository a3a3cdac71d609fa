#!/usr/bin/env bats
# A file export remembers the data range lseek found, so that reading a
# fully allocated file costs a few lseek calls, not two per request: on
# tmpfs SEEK_HOLE walks every page up to the next hole (about 5 ms from
# the start of a 1 GiB file), which made every 2 MiB read four times
# slower than without block status.  Counted with strace, not timed.
# bats file_tags=sanitize

load helpers

setup () { requires strace; }

# lseek calls with WHENCE (SEEK_DATA or SEEK_HOLE) the server made while
# sbnbd-client read its export FILE in 2 MiB requests.
server_lseeks () {
  local file=$1 whence=$2 log=$BATS_TEST_TMPDIR/strace.log
  strace -qq -f -e trace=lseek -o "$log" "$SBNBD_SERVER" -U - -r \
    --run '"$SBNBD_CLIENT" -q --request-size 2M read "$uri" /dev/null' "$file"
  grep -c "$whence" "$log" || true
}

@test "reading a fully allocated 64 MiB file: a few lseek calls, not 2 per request" {
  head -c 64M /dev/urandom > "$BATS_TEST_TMPDIR/disk"
  run server_lseeks "$BATS_TEST_TMPDIR/disk" SEEK_HOLE
  echo "SEEK_HOLE calls for 32 reads: $output"
  [ "$output" -ge 1 ] && [ "$output" -le 4 ]
}

@test "a fragmented file still gets its holes found (the count can grow)" {
  truncate -s 64M "$BATS_TEST_TMPDIR/disk"
  local i
  for i in $(seq 0 31); do
    printf x | dd of="$BATS_TEST_TMPDIR/disk" bs=1 seek=$((i * 2097152)) conv=notrunc status=none
  done
  run server_lseeks "$BATS_TEST_TMPDIR/disk" SEEK_HOLE
  echo "SEEK_HOLE calls for 32 fragmented extents: $output"
  [ "$output" -ge 32 ]
}
