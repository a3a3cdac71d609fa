#!/usr/bin/env bats
# sockboost attach --dry-run prints what it would change and changes
# nothing: the send buffer ss shows and the holder's own options stay.
# bats file_tags=sanitize

load helpers

setup () {
  use_attach_helper
  skip_if_valgrind_lacks_pidfd
  start_holder
}

@test "--dry-run reports the changes attach would make, and makes none" {
  run "$SOCKBOOST" attach --dry-run "$HOLDER_PID"
  assert_success
  assert_equal "$(grep -c "unix connected sndbuf $DEFAULT_TB -> $BOOSTED_TB (dry run)\$" <<<"$output")" 2
  assert_equal "$(grep -c 'tcp [a-z]* nodelay 0 -> 1 (dry run)$' <<<"$output")" 3
  assert_equal "${#lines[@]}" 5

  run unix_tbs_of_pid "$HOLDER_PID"
  refute_line "$BOOSTED_TB"
  run holder_says report
  assert_line "unix-stream-a sndbuf=$DEFAULT_TB nodelay=-"
  assert_line "unix-stream-b sndbuf=$DEFAULT_TB nodelay=-"
  refute_output --partial "nodelay=1"

  # The same sockets, attached for real, change as the dry run said.
  run "$SOCKBOOST" attach "$HOLDER_PID"
  assert_equal "$(grep -c ' -> ' <<<"$output")" 5
  run unix_tbs_of_pid "$HOLDER_PID"
  assert_line "$BOOSTED_TB"
}

@test "--dry-run --sndbuf 1G predicts what the kernel grants (no int overflow)" {
  local predicted granted
  run "$SOCKBOOST" attach --dry-run --sndbuf 1G "$HOLDER_PID"
  assert_success
  predicted=$(sed -n 's/.*unix connected sndbuf [0-9]* -> \([0-9]*\) (dry run)$/\1/p' <<<"$output" | sort -u)
  [ "$predicted" -gt 0 ]
  run "$SOCKBOOST" attach --sndbuf 1G "$HOLDER_PID"
  assert_success
  granted=$(sed -n 's/.*unix connected sndbuf [0-9]* -> \([0-9]*\)$/\1/p' <<<"$output" | sort -u)
  assert_equal "$predicted" "$granted"
}
