#!/usr/bin/env bats
# Bad arguments: usage on stderr and exit 2; --help and --version exit 0.
# bats file_tags=sanitize

load helpers

bad () {
  run "$SBNBD_SERVER" "$@"
  assert_failure 2
  assert_output --partial "Usage: sbnbd-server"
}

@test "bad arguments exit 2 with usage" {
  bad
  bad null:1M                       # no transport
  bad -U "$BATS_TEST_TMPDIR/s" -p 0 null:1M
  bad -p 70000 null:1M
  bad -p abc null:1M
  bad -p -1 null:1M
  bad -U "$BATS_TEST_TMPDIR/s" -b 127.0.0.1 null:1M
  bad -U "$BATS_TEST_TMPDIR/s" --socket-mode 999 null:1M
  bad -U "$BATS_TEST_TMPDIR/s" --max-connections 0 null:1M
  bad -U "$BATS_TEST_TMPDIR/s" --no-such-option null:1M
  bad -U "$BATS_TEST_TMPDIR/s" null:1M extra
  bad -U "$BATS_TEST_TMPDIR/s" -e "$(head -c 5000 /dev/zero | tr '\0' x)" null:1M
  [ ! -e "$BATS_TEST_TMPDIR/s" ]
}

@test "a bad backend is an error (exit 1), not a usage error" {
  run "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/s" memory:12Q
  assert_failure 1
  assert_output --partial "sbnbd-server: bad size in 'memory:12Q'"
  run "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/missing"
  assert_failure 1
  assert_output "sbnbd-server: $BATS_TEST_TMPDIR/missing: No such file or directory"
  run "$SBNBD_SERVER" -r -U "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR"
  assert_failure 1
  assert_output --partial "not a regular file or block device"
}

@test "--help and --version" {
  run "$SBNBD_SERVER" --help
  assert_success
  assert_output --partial "Usage: sbnbd-server"
  assert_output --partial "--split-replies"
  run "$SBNBD_SERVER" --version
  assert_success
  assert_output --regexp '^sbnbd-server [0-9]+\.[0-9]+\.[0-9]+$'
}
