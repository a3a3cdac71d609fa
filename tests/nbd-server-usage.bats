#!/usr/bin/env bats
# Bad arguments: one error line and one "Try" line, exit 2; a backend
# that is well formed but cannot be opened is an error, exit 1.
# bats file_tags=sanitize

load helpers

TRY="Try 'sbnbd-server --help' for more information."

# Exit 2 with exactly: "sbnbd-server: MESSAGE" and the Try line.
bad () {
  local message=$1
  shift
  run "$SBNBD_SERVER" "$@"
  assert_failure 2
  assert_equal "${#lines[@]}" 2
  assert_line -n 0 "sbnbd-server: $message"
  assert_line -n 1 "$TRY"
}

@test "bad options exit 2 with one line and a pointer to --help" {
  local s=$BATS_TEST_TMPDIR/s
  bad "no BACKEND given"
  bad "one of -U SOCKET or -p PORT is required" null:1M
  bad "-U and -p cannot be used together" -U "$s" -p 0 null:1M
  bad "-p 70000: out of range (0 to 65535)" -p 70000 null:1M
  bad "-p 99999: out of range (0 to 65535)" -p 99999 null:1M
  bad "-p abc: not a number" -p abc null:1M
  bad "-p -1: not a number" -p -1 null:1M
  bad "-b needs -p" -U "$s" -b 127.0.0.1 null:1M
  bad "--socket-mode 999: not an octal number" -U "$s" --socket-mode 999 null:1M
  bad "--socket-mode 1000: out of range (0 to 777)" -U "$s" --socket-mode 1000 null:1M
  bad "--max-connections 0: out of range (1 to 65536)" \
    -U "$s" --max-connections 0 null:1M
  bad "--handshake-timeout 0: out of range (1 to 3600)" \
    -U "$s" --handshake-timeout 0 null:1M
  bad "--handshake-timeout 1.5: not a number" \
    -U "$s" --handshake-timeout 1.5 null:1M
  bad "unknown or ambiguous option '--no-such-option'" \
    -U "$s" --no-such-option null:1M
  bad "unknown option '-x'" -U "$s" -x null:1M
  bad "option '--port' needs an argument" null:1M --port
  bad "option '-U' needs an argument" null:1M -U
  bad "option '--read-only' takes no argument" -U "$s" --read-only=yes null:1M
  bad "expected one BACKEND, got 2 arguments" -U "$s" null:1M extra
  bad "-U: empty socket path" -U "" null:1M
  bad "-e: export name longer than 4096 bytes" \
    -U "$s" -e "$(head -c 5000 /dev/zero | tr '\0' x)" null:1M
  [ ! -e "$s" ]
}

@test "a bad size is a usage error that lists the suffixes" {
  local forms="expected a size such as 2M or 4194304 (K, M, G or T; at most 4194304T)"
  bad "memory:5Q: not a size: $forms" -U "$BATS_TEST_TMPDIR/s" memory:5Q
  bad "pattern:: not a size: $forms" -U "$BATS_TEST_TMPDIR/s" pattern:
  bad "null:4194305T: out of range (0 to 4194304T)" -U "$BATS_TEST_TMPDIR/s" null:4194305T
  bad "null:99999999999999999999: out of range (0 to 4194304T)" \
    -U "$BATS_TEST_TMPDIR/s" null:99999999999999999999
}

@test "an unknown backend prefix names the backends" {
  local forms="expected FILE, memory:SIZE, null:SIZE or pattern:SIZE"
  cd "$BATS_TEST_TMPDIR"
  bad "unknown backend 'foo:' and no such file: $forms" -U s foo:1M
  bad "empty BACKEND: $forms" -U s ""
  # A file of that name is served, as any file is.
  truncate -s 1M foo:1M
  run "$SBNBD_SERVER" -U s -v --run 'test -S s' foo:1M
  assert_success
  assert_output --partial "serving foo:1M on nbd+unix:///?socket=s"
}

@test "a backend that cannot be opened is an error (exit 1), not a usage error" {
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
