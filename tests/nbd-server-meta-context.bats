#!/usr/bin/env bats
# LIST_META_CONTEXT and SET_META_CONTEXT answered as the spec says: one
# context, base:allocation; queries for unknown namespaces or contexts
# select nothing and are no error; malformed data gets ERR_INVALID,
# oversized lists ERR_TOO_BIG, and the haggling goes on; a request sent
# before GO ends that session alone.
# bats file_tags=sanitize

load helpers

STATUS=$BATS_TEST_DIRNAME/nbd-status.py

setup () {
  requires nbdinfo python3
  start_sbnbd_unix -v memory:64M
}

# Run a scenario, then show that the server is alive and serving.
scenario () {
  run timeout 60 python3 "$STATUS" "$NBD_SOCK" "$1"
  [ "$status" -eq 0 ] || { echo "$output"; cat "$NBD_LOG"; false; }
  run nbdinfo --size "$NBD_URI"
  assert_success
  assert_output "$((64 << 20))"
  sbnbd_alive "$NBD_PID"
}

@test "LIST: all, base:, duplicates, unknown queries, unknown export, malformed, too big" {
  scenario meta-list
}
@test "SET: needs reply chunks, base: and unknown queries select nothing, a failed SET clears" {
  scenario meta-set
}
@test "SET after extended headers" { scenario meta-set-extended; }
@test "a block status request before GO: that client is disconnected" {
  scenario query-before-go
  grep -q 'bad option magic' "$NBD_LOG"
}
@test "nbdinfo lists base:allocation as the export's one context" {
  nbdinfo --json "$NBD_URI" > "$BATS_TEST_TMPDIR/info.json"
  run python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["exports"][0]["contexts"])' "$BATS_TEST_TMPDIR/info.json"
  assert_success
  assert_output "['base:allocation']"
}
