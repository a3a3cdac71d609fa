#!/usr/bin/env bats
# --json prints one JSON object with the documented fields and consistent
# values: on stdout, or on stderr when the data itself goes to stdout.
# bats file_tags=sanitize

load helpers

check_json () {
  python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
want = {"operation", "bytes", "seconds", "bytes_per_second", "gib_per_second",
        "requests", "requests_per_second", "mean_latency_seconds",
        "connections", "queue_depth", "request_size", "structured_replies",
        "extended_headers", "hole_bytes"}
assert set(o) == want, sorted(set(o) ^ want)
assert o["operation"] == "read" and o["bytes"] == 8 << 20, o
assert o["requests"] == 16 and o["request_size"] == 512 << 10, o
assert o["queue_depth"] == 3 and o["connections"] == 1, o
assert o["seconds"] > 0 and abs(o["bytes_per_second"] * o["seconds"] - o["bytes"]) < o["bytes"] * 0.01, o
assert abs(o["gib_per_second"] - o["bytes_per_second"] / 2**30) < 0.001, o
assert abs(o["requests_per_second"] * o["seconds"] - o["requests"]) < o["requests"] * 0.01, o
# Each request waits at most the whole run.
assert 0 < o["mean_latency_seconds"] <= o["seconds"], o
'
}

@test "read --json: one object on stdout, nothing else" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  cl_client --json --request-size 512K --queue-depth 3 read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
  check_json < "$BATS_TEST_TMPDIR/out"
  [ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "read - --json: data on stdout, the object on stderr" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  cl_client --json --request-size 512K --queue-depth 3 read \
    "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" - > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
  check_json < "$BATS_TEST_TMPDIR/err"
  [ "$(stat -c %s "$BATS_TEST_TMPDIR/out")" -eq $((8 << 20)) ]
}

@test "without --json: one summary line on stderr, stdout empty" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
  [ ! -s "$BATS_TEST_TMPDIR/out" ]
  run cat "$BATS_TEST_TMPDIR/err"
  assert_output --regexp '^sbnbd-client: read 8388608 bytes in [0-9.]+ s: [0-9.]+ [KMG]?i?B/s, [0-9]+ requests/s, mean latency [0-9.]+ ms \(4 requests, 1 connection, queue depth 4, request size 2097152\)$'
}
