#!/usr/bin/env bats
# doc/sbnbd-server.1 renders cleanly and documents every option --help lists.
# bats file_tags=sanitize

load helpers

@test "sbnbd-server(1) renders without warnings" {
  requires man
  run env MANWIDTH=80 man --warnings -l "$SB_ROOT/doc/sbnbd-server.1"
  assert_success
  refute_output --partial "warning"
  assert_output --partial "SBNBD-SERVER(1)"
}

@test "every long option of --help is in sbnbd-server(1)" {
  requires man
  local page opt missing=()
  page=$(MANWIDTH=200 man -l "$SB_ROOT/doc/sbnbd-server.1" 2>/dev/null)
  for opt in $("$SBNBD_SERVER" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    grep -qF -- "$opt" <<< "$page" || missing+=("$opt")
  done
  [ ${#missing[@]} -eq 0 ] || fail "not in the man page: ${missing[*]}"
}
