#!/usr/bin/env bats
# sockboost status keeps its columns whatever the socket names: a long
# path comes last and widens nothing else; a name holding a newline or
# control characters stays on its row, escaped.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires ss
}

# The column where each header word of the table starts.
header_offsets () {
  awk '/^  FD / { for (w = 1; w <= split("FD TYPE STATE TB BOOSTED PEER LOCAL", h, " "); w++)
                    printf "%d ", index($0 " ", " " h[w] " "); print ""; exit }' <<<"$1"
}

@test "a long socket path does not break the columns" {
  local dir=$BATS_TEST_TMPDIR path offsets row off
  path=$dir/$(printf 'long-socket-name-%.0s' {1..4})
  path=${path:0:102}.sock   # at most 107 bytes: sun_path holds 108 with its NUL
  start_probe "$path"
  run "$SOCKBOOST" status "$PROBE_PID"
  assert_success
  read -r -a offsets <<<"$(header_offsets "$output")"
  [ "${#offsets[@]}" -eq 7 ] || fail "no table header: $output"
  # Every row of the table has a value starting under each header word,
  # and the path, whole, under LOCAL.
  while IFS= read -r row; do
    for off in "${offsets[@]:1}"; do
      [ "${row:off-1:1}" = " " ] && [ "${row:off:1}" != " " ] ||
        fail "row out of its columns at $off: '$row'"
    done
  done < <(grep -E '^  [0-9]' <<<"$output")
  assert_line --regexp "ESTAB .* sb-probe $PROBE_PID +$path\$"
  [ "$(grep -cE '^  [0-9]' <<<"$output")" -eq 4 ] || fail "expected 4 sockets: $output"
}

@test "a name with a newline and control characters stays on its row, escaped" {
  requires jq
  local name=$'we ird\n"q\x01\t.sock'
  start_probe "$BATS_TEST_TMPDIR/$name"
  run "$SOCKBOOST" status "$PROBE_PID"
  assert_success
  assert_line --regexp 'sb-probe [0-9]+ +'"$BATS_TEST_TMPDIR"'/we ird\\n"q\\x01\\t\.sock$'
  [[ $output != *$'\x01'* ]] || fail "a control character reached the output"
  # JSON carries the real name.
  run "$SOCKBOOST" status --json "$PROBE_PID"
  assert_success
  run jq -r '.sockets[] | select(.local != null) | .local' <<<"$output"
  assert_success
  assert_equal "$output" "$BATS_TEST_TMPDIR/$name"
}
