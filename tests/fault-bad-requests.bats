#!/usr/bin/env bats
# Requests a server must refuse get the protocol's error, and the same
# connection goes on serving: oversize and zero lengths, out-of-range and
# overflowing offsets, unknown commands and flags, writes to a read-only
# export.  (A write's payload is consumed even when refused.)
# bats file_tags=sanitize

load helpers

setup () { requires python3 nbdcopy; }

@test "out-of-range and overflowing offsets: EINVAL for reads, ENOSPC for writes" {
  start_sbnbd_unix memory:1M
  run rawnbd greeting go req=read,1048576,1 req=read,1048064,1024 \
    req=read,0xffffffffffffff00,512 req=write,1048575,2 \
    req=write,0xfffffffffffffe00,512 req=zero,1048064,1024 req=trim,1048064,1024 \
    req=read,1048575,1 disc
  assert_success
  assert_output "greeting flags=0x3
go size=1048576 flags=0x96d
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=ENOSPC
reply error=ENOSPC
reply error=ENOSPC
reply error=EINVAL
reply error=0 data=1
disc"
}

@test "oversize and zero-length requests: EINVAL, the connection goes on" {
  start_sbnbd_unix memory:64M
  run rawnbd greeting go req=read,0,33554433 req=read,0,0xffffffff \
    req=write,0,33554433 req=read,0,0 req=read,0,33554432 disc
  assert_success
  assert_output "greeting flags=0x3
go size=67108864 flags=0x96d
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=0 data=33554432
disc"
}

@test "unknown commands and flags: EINVAL, the connection goes on" {
  start_sbnbd_unix memory:1M
  run rawnbd greeting go req=cache,0,512 req=block-status,0,512 req=8,0,512 \
    req=65535,0,512 req=read,0,512,0x8000 req=flush,0,0,0x2 req=read,0,512 disc
  assert_success
  assert_output "greeting flags=0x3
go size=1048576 flags=0x96d
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=EINVAL
reply error=0 data=512
disc"
}

@test "writes, trims and zeroes to a read-only export: EPERM, data unchanged" {
  start_sbnbd_unix -r memory:1M
  local before
  before=$(nbdcopy "$NBD_URI" - | md5sum)
  run rawnbd greeting go req=write,0,4096 req=trim,0,4096 req=zero,0,4096 \
    req=write,0,4096,1 req=flush,0,0 req=read,0,4096 disc
  assert_success
  assert_output "greeting flags=0x3
go size=1048576 flags=0x107
reply error=EPERM
reply error=EPERM
reply error=EPERM
reply error=EPERM
reply error=0
reply error=0 data=4096
disc"
  [ "$(nbdcopy "$NBD_URI" - | md5sum)" = "$before" ]
}
