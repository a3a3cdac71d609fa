#!/usr/bin/env bats
# verify stops at the first mismatch (the requests in flight complete,
# nothing more is asked for), names the byte found beside the byte
# expected, and with --json prints a failure object on stdout.
# bats file_tags=sanitize

bats_require_minimum_version 1.5.0
load helpers

BAD=$((5 * 1024 * 1024 + 3))      # in the sixth 1 MiB request of 64

# nbdkit memory holding the pattern, with 0xab at offset BAD; nbdkit's
# log filter records every request from then on.
setup () {
  local sock=$BATS_TEST_TMPDIR/s
  URI=$(cl_unix_uri "$sock")
  NBDKIT_LOG=$BATS_TEST_TMPDIR/nbdkit.log
  cl_start_nbdkit "$sock" --filter=log memory 64M logfile="$NBDKIT_LOG"
  cl_client -q write pattern "$URI"
  printf '\xab' > "$BATS_TEST_TMPDIR/byte"
  cl_client -q --offset "$BAD" write "$BATS_TEST_TMPDIR/byte" "$URI"
  : > "$NBDKIT_LOG"
}

expected_byte () { printf '0x%02x' $((1 + BAD % 251)); }

@test "the first mismatch shows the byte found, and reading stops there" {
  # One request at a time, so that exactly which were read is known.
  run --separate-stderr cl_client --request-size 1M --queue-depth 1 verify "$URI"
  assert_failure 1
  assert_equal "$output" ""
  assert_equal "$stderr" "sbnbd-client: verify: first mismatch at offset $BAD: expected $(expected_byte), found 0xab"
  # Requests 1-6 reach the bad byte; the other 58 are never sent.
  assert_equal "$(grep -c ' Read id=' "$NBDKIT_LOG")" 6
}

# How many requests go out before the bad one is answered depends on
# scheduling here: only the offset is checked.
@test "with several connections the mismatch reported is still the first" {
  run --separate-stderr cl_client --connections 4 --request-size 256K \
    --queue-depth 8 verify "$URI"
  assert_failure 1
  assert_equal "$stderr" "sbnbd-client: verify: first mismatch at offset $BAD: expected $(expected_byte), found 0xab"
}

@test "--json: a failure object on stdout, the message on stderr" {
  run --separate-stderr cl_client --json --request-size 1M verify "$URI"
  assert_failure 1
  assert_equal "$stderr" "sbnbd-client: verify: first mismatch at offset $BAD: expected $(expected_byte), found 0xab"
  python3 -c '
import json, sys
o = json.loads(sys.argv[1])
want = {"operation": "verify", "result": "mismatch", "offset": int(sys.argv[2]),
        "expected": 1 + int(sys.argv[2]) % 251, "found": 0xab}
assert o == want, o
' "$output" "$BAD"
}
