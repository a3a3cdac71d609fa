#!/usr/bin/env bats
# Host mode's default filter, sockboost doctor and sockboost status know
# the same NBD programs (one table, common/nbd-programs.c): every program
# the filter takes by default is one doctor lists when it is on PATH and
# one status names when a process runs it.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires jq
  [ -x "$SB_BUILD/tools/sb-host" ] ||
    sb_skip "tools/sb-host is not built (host mode needs clang, libbpf-dev and bpftool)"
  BIN=$BATS_TEST_TMPDIR/bin
  mkdir -p "$BIN"
}

# The programs host mode takes by default, one a line, as sb-host says.
host_default_programs () {
  "$SB_BUILD/tools/sb-host" --help | sed -n 's/.* for a prefix (default: \(.*\))$/\1/p' | tr , '\n'
}

# A program of NAME (a prefix: one of its family): a copy of sleep, so
# that a process runs it as its own file.
fake_program () {
  local file=${1%\*}
  [ "$file" = "$1" ] || file=${file}fake
  cp "$(type -P sleep)" "$BIN/$file"
  echo "$file"
}

@test "sb-host's default programs are the table sb-config gives the tools" {
  run host_default_programs
  assert_success
  [ "${#lines[@]}" -ge 11 ] || fail "sb-host --help names ${#lines[@]} programs: $output"
  assert_output "$("$SB_BUILD/tools/sb-config" --programs | cut -f2)"
  assert_line qemu-storage-daemon
  assert_line nbd-client
  assert_line 'sbnbd-*'
}

@test "doctor lists, and status names, every program host mode takes" {
  local name file files=() pids=() json
  while read -r name; do
    file=$(fake_program "$name")
    files+=("$file")
  done < <(host_default_programs)
  json=$(PATH=$BIN:$PATH "$SOCKBOOST" doctor --json) || fail "doctor failed: $json"
  for file in "${files[@]}"; do
    jq -e --arg n "$file" --arg p "$BIN/$file" \
      '[.programs[] | select(.name == $n and .path == $p)] | length == 1' <<<"$json" >/dev/null ||
      fail "doctor does not list $file: $(jq -c '[.programs[].name]' <<<"$json")"
  done
  for file in "${files[@]}"; do
    "$BIN/$file" 30 </dev/null >/dev/null 2>&1 &
    kill_at_teardown $!
    pids+=($!)
  done
  local i
  for i in "${!files[@]}"; do
    wait_for_exe "${pids[$i]}" "$BIN/${files[$i]}"
    run "$SOCKBOOST" status --json "${pids[$i]}"
    assert_success
    [ "$(jq -r .program.name <<<"$output")" = "${files[$i]}" ] ||
      fail "status ${pids[$i]} does not name ${files[$i]}: $(jq -c .program <<<"$output")"
  done
}
