#!/usr/bin/env bats
# Client input is never a format string: export names full of conversion
# specifiers are logged (with -v) byte for byte and crash nothing.
# (Socket mode 0600 and loopback-only TCP are in nbd-server-socket-mode.bats
# and nbd-server-tcp.bats.)
# bats file_tags=sanitize

load helpers

NAME='%n%n%s%s%s%x%p%99999999d'

@test "an export name of %n%s... is refused and logged literally" {
  requires python3
  start_sbnbd_unix -v memory:1M
  run rawnbd greeting go="$NAME" export-name="$NAME" eof
  assert_line --index 1 "go ERR_UNKNOWN"
  assert_line --index 2 eof
  run rawnbd greeting go req=read,0,512
  assert_success
  run grep -cF "unknown export '$NAME'" "$NBD_LOG"
  assert_output 2
}

@test "every printf-family call in the programs and library has a literal format" {
  # -Wformat=2 (with -Wformat-nonliteral) is part of WARNFLAGS and CI
  # builds with -Werror: a non-literal format does not compile.
  local obj
  for obj in nbd/server/conn.o nbd/client/report.o preload/log.o; do
    run make -s -n -B -C "$SB_ROOT" "$obj"
    assert_output --partial "-Wformat=2"
  done
  local f=$BATS_TEST_TMPDIR/bad.c
  printf '%s\n' '#include <stdio.h>' 'void f (const char *s);' \
    'void f (const char *s) { printf (s); }' > "$f"
  run cc -std=gnu11 -Wformat=2 -Werror -c -o /dev/null "$f"
  assert_failure
}
