#!/usr/bin/env bats
# A libnbd program checks every option and command sbnbd-server supports,
# its error replies, simple and structured replies (tests/progs/libnbd-conformance.c).
# bats file_tags=sanitize

load helpers

CONFORMANCE=$SB_BUILD/tests/progs/libnbd-conformance

# The program is built on the host; the compat chroots run it with their
# own libnbd and have no libnbd-dev, so only a missing program counts.
setup () {
  [ -x "$CONFORMANCE" ] && return
  pkg-config --exists libnbd 2>/dev/null ||
    sb_skip "needs libnbd-dev to build $CONFORMANCE (tests/install-deps installs it as root)"
  fail "$CONFORMANCE is not built (make test-programs)"
}

@test "libnbd conformance: memory export over a unix socket" {
  start_sbnbd_unix memory:64M
  run "$CONFORMANCE" "$NBD_URI"
  echo "$output"
  assert_success
  assert_output --partial "ok 1 - structured: structured replies negotiated: yes"
  assert_output --partial "simple: structured replies negotiated: no"
  refute_output --partial "not ok"
}

@test "libnbd conformance: memory export over TCP with an export name" {
  start_sbnbd_tcp -e conformance memory:64M
  run "$CONFORMANCE" "$NBD_URI"
  echo "$output"
  assert_success
  refute_output --partial "not ok"
}

@test "libnbd conformance: read-only export answers writes with EPERM" {
  start_sbnbd_unix -r pattern:64M
  run "$CONFORMANCE" --read-only "$NBD_URI"
  echo "$output"
  assert_success
  refute_output --partial "not ok"
}

@test "libnbd conformance fails against a read-only export (it can fail)" {
  start_sbnbd_unix -r memory:64M
  run "$CONFORMANCE" "$NBD_URI"
  assert_failure
  assert_output --partial "not ok"
}
