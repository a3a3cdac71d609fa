#!/usr/bin/env bats
# Export names at and past NBD_MAX_STRING (4096 bytes) get the protocol's
# answer, and the longest name the server accepts can be negotiated.
# bats file_tags=sanitize

load helpers

setup () {
  requires python3 nbdinfo
  LONG=$(printf 'n%.0s' $(seq 4096))
}

@test "an export named with 4096 bytes can be reached with NBD_OPT_GO" {
  start_sbnbd_unix -e "$LONG" memory:1M
  run rawnbd greeting go="$LONG"
  assert_success
  assert_line --index 1 "go size=1048576 flags=0x96d"
  run nbdinfo --size "nbd+unix:///$LONG?socket=$NBD_SOCK"
  assert_success
  assert_output 1048576
}

@test "wrong names of 4095, 4096 and 4097 bytes get ERR_UNKNOWN and haggling goes on" {
  start_sbnbd_unix -e "$LONG" memory:1M
  run rawnbd greeting go-namelen=4095 go-namelen=4096 go-namelen=4097 go="$LONG"
  assert_success
  assert_output "greeting flags=0x3
go ERR_UNKNOWN
go ERR_UNKNOWN
go ERR_UNKNOWN
go size=1048576 flags=0x96d"
}

@test "a wrong name in NBD_OPT_EXPORT_NAME closes that client alone" {
  start_sbnbd_unix memory:1M
  run rawnbd greeting export-name=nope eof
  assert_line --index 1 eof
  run rawnbd greeting export-name req=read,0,512
  assert_success
  assert_line --index 2 "reply error=0 data=512"
}
