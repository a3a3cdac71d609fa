#!/usr/bin/env bats
# sockboost doctor --json prints one valid JSON object, on success and on
# failure, with the limits, the request, the self-test and the programs.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires jq python3 ss
}

assert_valid_json () {
  python3 -m json.tool <<<"$1" >/dev/null || fail "python3 rejects it: $1"
  jq -e . <<<"$1" >/dev/null || fail "jq rejects it: $1"
}

@test "doctor --json is valid JSON and says what the report says" {
  run --separate-stderr "$SOCKBOOST" doctor --json
  assert_success
  assert_equal "$stderr" ""
  assert_valid_json "$output"
  local json=$output
  run jq -r '"\(.wmem_default) \(.wmem_max) \(.requested) \(.expected_tb) \(.self_test.passed) \(.library)"' <<<"$json"
  assert_output "$DEFAULT_TB $(cat /proc/sys/net/core/wmem_max) 2097152 $BOOSTED_TB true $LIBSOCKBOOST"
  run jq -r '.self_test.verdict' <<<"$json"
  assert_output --partial "PASS: tb $BOOSTED_TB"
  jq -e '(.programs | length) + (.missing_programs | length) == 6' <<<"$json"
}

@test "a failing doctor still prints valid JSON, and exits 1" {
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/none.so run --separate-stderr "$SOCKBOOST" doctor --json
  assert_failure 1
  assert_valid_json "$output"
  jq -e '.self_test.passed == false' <<<"$output"
  run jq -r .self_test.verdict <<<"$output"
  assert_output "FAIL: the library is missing: $BATS_TEST_TMPDIR/none.so"
}

@test "a malformed variable is a warning in the JSON, escaped" {
  SOCKBOOST_SNDBUF=$'2Q"\n\x01' run --separate-stderr "$SOCKBOOST" doctor --json
  assert_success
  assert_valid_json "$output"
  run jq -r '.warnings[0]' <<<"$output"
  assert_output "SOCKBOOST_SNDBUF='2Q\"\\n\\x01' is invalid, so the library uses 2M; it takes bytes, or a number with a K, M or G suffix (powers of 1024), at most 1G; 0 or off disables"
}

@test "a request above wmem_max carries the fix" {
  local want=$(($(cat /proc/sys/net/core/wmem_max) * 2))
  [ "$want" -le 1073741823 ] || skip "net.core.wmem_max is too large to exceed here"
  SOCKBOOST_SNDBUF=$want SOCKBOOST_FORCE=off run "$SOCKBOOST" doctor --json
  assert_success
  jq -e --arg w "$want" '.honoured == "clipped" and (.fix[0] == "sysctl -w net.core.wmem_max=\($w)")' <<<"$output"
}
