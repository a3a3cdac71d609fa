#!/usr/bin/env bats
# --run CMD: the command gets $uri and friends, the server exits with its
# status and leaves no socket behind.
# bats file_tags=sanitize

load helpers

setup () { requires nbdinfo; }

@test "--run: \$uri reaches the export" {
  run "$SBNBD_SERVER" --run 'nbdinfo --size "$uri"' pattern:7M
  assert_success
  assert_output "7340032"
}

@test "--run: the command's exit status is the server's" {
  run "$SBNBD_SERVER" --run 'exit 7' null:1M
  assert_failure 7
  run "$SBNBD_SERVER" --run 'true' null:1M
  assert_success
}

@test "--run: a command killed by a signal gives 128+signal" {
  run "$SBNBD_SERVER" --run 'kill -TERM $$' null:1M
  assert_failure 143
}

@test "--run with -U -: private socket in \$unixsocket, gone afterwards" {
  run "$SBNBD_SERVER" -U - --run 'test -S "$unixsocket" && echo "$unixsocket" &&
    case $uri in nbd+unix:///\?socket=$unixsocket) echo uri-ok ;; esac' null:1M
  assert_success
  assert_line --index 1 uri-ok
  [ ! -e "${lines[0]}" ]
  [ ! -e "$(dirname "${lines[0]}")" ]
}

@test "--run with -p 0: \$port is the port actually bound" {
  run "$SBNBD_SERVER" -p 0 --run 'echo "$port"; echo "$uri"; nbdinfo --size "nbd://127.0.0.1:$port/"' null:3M
  assert_success
  [ "${lines[0]}" -gt 0 ]
  assert_line --index 1 "nbd://127.0.0.1:${lines[0]}/"
  assert_line --index 2 3145728
}

@test "--run: the server keeps serving while the command runs" {
  run "$SBNBD_SERVER" -e data --run '
    nbdinfo --size "$uri" & nbdinfo --size "$uri" & wait
    nbdinfo --size "$uri"' pattern:1K
  assert_success
  assert_equal "${#lines[@]}" 3
}
