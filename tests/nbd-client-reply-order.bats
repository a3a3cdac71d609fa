#!/usr/bin/env bats
# Replies are matched by cookie: out-of-order replies, chunks in any order,
# holes between data, and simple replies all give the right bytes.
# bats file_tags=sanitize

load helpers

verify_against () {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" "$1"
  run cl_client --request-size 1M --queue-depth 4 verify "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
}

@test "replies in reverse order, chunks in reverse order: verify passes" {
  verify_against reorder
  assert_success
}

@test "simple replies only: verify passes" {
  verify_against simple
  assert_success
}

@test "holes every other request: read gives zeroes there and data elsewhere" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" holes
  run cl_client --request-size 1M --queue-depth 1 read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" "$BATS_TEST_TMPDIR/out"
  assert_success
  run python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
period = bytes(1 + i % 251 for i in range(251)) * (len(data) // 251 + 2)
mib = 1 << 20
for i in range(len(data) // mib):
    want = bytes(mib) if i % 2 else period[(i * mib) % 251:][:mib]
    if data[i * mib:(i + 1) * mib] != want:
        sys.exit("MiB %d is wrong" % i)
sys.exit(0 if len(data) == 8 * mib else "size %d" % len(data))' "$BATS_TEST_TMPDIR/out"
  assert_success
}

@test "verify names the first hole as the first mismatch" {
  verify_against holes
  assert_failure 1
  assert_output "sbnbd-client: verify: first mismatch at offset 1048576: expected 0x$(printf %02x $((1 + 1048576 % 251))), found 0x00"
}
