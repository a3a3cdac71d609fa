#!/usr/bin/env bats
# --progress draws a bar on stderr (redrawn with \r, ending at 100%); without
# it, stderr has only the summary line.
# bats file_tags=sanitize

load helpers

@test "--progress: bar on stderr, redrawn while a slow read runs, ends at 100%" {
  requires nbdkit
  cl_start_nbdkit "$BATS_TEST_TMPDIR/s" --filter=delay pattern 16M rdelay=100ms
  cl_client --progress --queue-depth 1 read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")" \
    > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
  [ ! -s "$BATS_TEST_TMPDIR/out" ]
  # 8 requests of 100 ms: at 4 redraws a second, at least 3 bars.
  run bash -c "tr '\r' '\n' < '$BATS_TEST_TMPDIR/err' | grep -c '^\[[#.]*\] *[0-9]*% '"
  [ "$output" -ge 3 ]
  run bash -c "tr '\r' '\n' < '$BATS_TEST_TMPDIR/err' | grep '^\[' | tail -n 1"
  assert_output --regexp '^\[#{30}\] 100% 0\.02/0\.02 GiB [0-9.]+ GiB/s *$'
}

@test "no --progress: no bar" {
  cl_start_fake_server "$BATS_TEST_TMPDIR/s" good
  run cl_client read "$(cl_unix_uri "$BATS_TEST_TMPDIR/s")"
  assert_success
  refute_output --partial '%'
  [ "${#lines[@]}" -eq 1 ]
}
