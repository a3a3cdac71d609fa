#!/usr/bin/env bats
# Option haggling under abuse: unknown options, malformed INFO/GO data and
# option lengths at and past the server's bound (NBD_MAX_OPTION_LENGTH,
# 4 + 4096 + 2 + 2*16 = 4134 bytes) get the protocol's reply and the
# haggling stays in step; only what cannot be refused ends the session.
# bats file_tags=sanitize

load helpers

setup () {
  requires python3
  start_sbnbd_unix -e fuzz memory:1M
}

@test "unknown and unsupported options get ERR_UNSUP, then GO works" {
  run rawnbd greeting opt=0,0 opt=4,0 opt=5,0 \
    opt=99,16 opt=4294967295,0 go=fuzz
  assert_success
  assert_output "greeting flags=0x3
opt 0 ERR_UNSUP
opt 4 ERR_UNSUP
opt 5 ERR_UNSUP
opt 99 ERR_UNSUP
opt 4294967295 ERR_UNSUP
go size=1048576 flags=0x96d"
}

@test "option data at the bound is read, one byte past it gets ERR_TOO_BIG, in step" {
  run rawnbd greeting opt=99,4134 opt=99,4135 opt=7,4135 opt=7,1000000 go=fuzz
  assert_success
  assert_output "greeting flags=0x3
opt 99 ERR_UNSUP
opt 99 ERR_TOO_BIG
opt 7 ERR_TOO_BIG
opt 7 ERR_TOO_BIG
go size=1048576 flags=0x96d"
}

@test "malformed INFO/GO data and stray LIST/STRUCTURED_REPLY data get ERR_INVALID" {
  # GO: name length past the data; count past the data; 5 bytes in all;
  # one byte too many after the info requests.
  run rawnbd greeting opt-hex=7,0000ffff0000 opt-hex=7,000000000005 \
    opt-hex=7,0000000000 opt-hex=7,00000000000000 opt-hex=6,00000004 \
    opt=3,4 opt=8,1 go=fuzz
  assert_success
  assert_output "greeting flags=0x3
opt 7 ERR_INVALID
opt 7 ERR_INVALID
opt 7 ERR_INVALID
opt 7 ERR_INVALID
opt 6 ERR_INVALID
opt 3 ERR_INVALID
opt 8 ERR_INVALID
go size=1048576 flags=0x96d"
}

@test "an over-long NBD_OPT_EXPORT_NAME cannot be refused: that client alone is dropped" {
  run rawnbd greeting opt=1,4135
  assert_failure
  assert_line --index 1 --regexp "^eof"
  run rawnbd greeting go=fuzz req=read,0,512
  assert_success
  assert_line --index 2 "reply error=0 data=512"
}

@test "a bad option magic or unknown client flags end that session" {
  run python3 - "$NBD_SOCK" <<'PY'
import socket, sys
for flags, rest in ((b"\0\0\0\3", b"NOTMAGIC" + bytes(8)), (b"\0\0\1\3", b"")):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.recv(18)
    s.sendall(flags + rest)
    print("closed" if s.recv(100) == b"" else "still open")
PY
  assert_output "closed
closed"
  run rawnbd greeting go=fuzz
  assert_success
}
