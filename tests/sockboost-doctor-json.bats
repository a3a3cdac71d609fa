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
  # Each NBD program of the table is found or missing, a family of
  # programs (qemu-system-*) by each of its names or as the family; and
  # nothing else is listed.
  local name found all_found=0 missing=0
  while IFS=$'\t' read -r _ name _; do
    found=$(jq --arg n "$name" '[.programs[].name | select(
              if $n | endswith("*") then startswith($n | rtrimstr("*")) else . == $n end)]
            | length' <<<"$json")
    if jq -e --arg n "$name" '.missing_programs | index($n)' <<<"$json" >/dev/null; then
      assert_equal "$name: $found found" "$name: 0 found"
      missing=$((missing + 1))
    else
      [ "$found" -gt 0 ] || fail "$name is neither found nor missing"
    fi
    all_found=$((all_found + found))
  done < <("$SB_BUILD/tools/sb-config" --programs)
  assert_equal "$(jq '[(.programs | length), (.missing_programs | length)]' -c <<<"$json")" \
    "[$all_found,$missing]"
}

@test "a failing doctor still prints valid JSON, and exits 1" {
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/none.so run --separate-stderr "$SOCKBOOST" doctor --json
  assert_failure 1
  assert_valid_json "$output"
  jq -e '.self_test.passed == false' <<<"$output"
  run jq -r .self_test.verdict <<<"$output"
  assert_output "FAIL: the library is missing: $BATS_TEST_TMPDIR/none.so"
}

@test "a malformed variable is a warning in the JSON, in the library's words, escaped" {
  SOCKBOOST_SNDBUF=$'2Q"\n\x01' run --separate-stderr "$SOCKBOOST" doctor --json
  assert_success
  assert_valid_json "$output"
  run jq -r '.warnings[0]' <<<"$output"
  assert_output "ignoring SOCKBOOST_SNDBUF='2Q\\\"\\n\\x01': expected a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off; using the default"
}

@test "a request above wmem_max carries the fix" {
  local want=$(($(cat /proc/sys/net/core/wmem_max) * 2))
  [ "$want" -le 1073741823 ] || skip "net.core.wmem_max is too large to exceed here"
  SOCKBOOST_SNDBUF=$want SOCKBOOST_FORCE=off run "$SOCKBOOST" doctor --json
  assert_success
  jq -e --arg w "$want" '.honoured == "clipped" and (.fix[0] == "sysctl -w net.core.wmem_max=\($w)")' <<<"$output"
}
