#!/usr/bin/env bats
# The QMP client the migration benchmark and tests drive QEMU with
# (tools/benchlib/qmp.py), against a fake QEMU that follows a script
# (tests/migration-fake-qmp.py): events QEMU sends before its greeting
# or while a command waits for its reply are kept, in order, for whoever
# waits for them; a failed command reports QEMU's description; silence,
# a closed socket, bad JSON or a missing greeting end with an error
# within the wait's bound, never a hang.

load helpers

fake_qmp () {
  requires python3 timeout
  # The timeout bounds a client that would hang, which is the failure.
  run timeout 20 python3 "$SB_TESTS_DIR/migration-fake-qmp.py" "$1"
  echo "$output"
}

@test "QMP client: events before the greeting and before a reply are kept for wait_event, in order, matched on their data" {
  fake_qmp events
  assert_success
  assert_line --index 0 'reply {"n": 1}'
  # Matched on the data: the second BLOCK_JOB_READY, for device "other".
  assert_line --index 1 'event BLOCK_JOB_READY other'
  # The rest in the order QEMU sent them, RESUME from before the greeting.
  assert_line --index 2 'event RESUME'
  assert_line --index 3 'event BLOCK_JOB_READY'
  assert_line --index 4 'event JOB_STATUS_CHANGE'
  # None left: the wait ends at its bound.
  assert_line --index 5 --regexp '^error waiting for BLOCK_JOB_READY: QEMU sent nothing within 0.5 s after (0\.[5-9]|1\.[0-9]) s$'
}

@test "QMP client: a failed command raises QEMU's description" {
  fake_qmp error
  # At once: a reply ends the wait, however long it may be (1 s).
  assert_output --regexp '^error query-status: no such node after 0\.[0-4] s$'
}

@test "QMP client: silence, a closed socket, bad JSON and a missing greeting are errors, within the bound" {
  fake_qmp silent
  assert_output --regexp '^error query-status: QEMU sent nothing within 1 s after 1\.[0-9] s$'
  # The others at once, without waiting for the bound.
  fake_qmp closed
  assert_output --regexp '^error query-status: QEMU closed its QMP socket after 0\.[0-4] s$'
  fake_qmp garbage
  assert_output --regexp "^error query-status: QEMU sent bad JSON: 'not json' after 0\.[0-4] s$"
  fake_qmp no-greeting
  assert_output --regexp "^error not a QMP greeting: \{'return': \{\}\} after 0\.[0-4] s$"
}
