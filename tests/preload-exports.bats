#!/usr/bin/env bats
# Only the hooks are exported from libsockboost.so.

load helpers

@test "nm -D lists exactly the hooked functions" {
  requires nm
  run bash -c "nm -D --defined-only '$LIBSOCKBOOST' | awk '{ print \$3 }' | sort | tr '\n' ' '"
  assert_success
  assert_output "__read_chk __recv_chk __recvfrom_chk accept accept4 close close_range closefrom connect dup2 dup3 read readv recv recvfrom recvmmsg recvmsg send sendfile sendfile64 sendmmsg sendmsg sendto setsockopt socket socketpair splice write writev "
}
