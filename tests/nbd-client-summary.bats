#!/usr/bin/env bats
# The summary says requests per second and the mean latency per request,
# with a throughput unit that fits (a 4 KiB read is not "0.00 GiB/s");
# -v says what was negotiated and chosen.
# bats file_tags=sanitize

bats_require_minimum_version 1.5.0
load helpers

@test "a small read: rate in a fitting unit, requests/s and mean latency" {
  start_sbnbd_unix pattern:1M
  run cl_client --request-size 1K --queue-depth 2 --length 4K read "$NBD_URI"
  assert_success
  assert_output --regexp '^sbnbd-client: read 4096 bytes in [0-9.]+ s: [0-9.]+ (B|KiB|MiB|GiB)/s, [0-9]+ requests/s, mean latency [0-9.]+ ms \(4 requests, 1 connection, queue depth 2, request size 1024\)$'
  refute_output --partial "0.00 GiB/s"
  # The unit keeps the number at 1 or more.
  [[ $output =~ :\ ([0-9.]+)\ [KMG]?i?B/s ]]
  python3 -c "import sys; sys.exit(float(sys.argv[1]) < 1)" "${BASH_REMATCH[1]}"
}

@test "requests/s and latency agree with the request count and time" {
  start_sbnbd_unix pattern:8M
  run cl_client --json --request-size 64K --queue-depth 1 read "$NBD_URI"
  assert_success
  python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["requests"] == 128, o
assert abs(o["requests_per_second"] * o["seconds"] - 128) < 1.5, o
# One request in flight at a time: each takes about seconds / requests,
# never more (the time between requests is not latency).
assert 0 < o["mean_latency_seconds"] <= o["seconds"] / 128 * 1.01, o
' "$output"
}

@test "-v says what was negotiated and what the transfer will be" {
  start_sbnbd_unix -e disk pattern:4M
  run --separate-stderr cl_client -v --length 1M read "$NBD_URI"
  assert_success
  assert_equal "${#stderr_lines[@]}" 4
  assert_regex "${stderr_lines[0]}" "^sbnbd-client: export 'disk': 4194304 bytes, flags 0x[0-9a-f]{4}, structured replies, extended headers, base:allocation, by NBD_OPT_GO\$"
  assert_equal "${stderr_lines[1]}" "sbnbd-client: block sizes: minimum 1, preferred 4096, maximum 33554432"
  assert_equal "${stderr_lines[2]}" "sbnbd-client: read 1048576 bytes from offset 0: 1 connection, queue depth 4, request size 2097152"
  assert_regex "${stderr_lines[3]}" '^sbnbd-client: read 1048576 bytes in '
}
