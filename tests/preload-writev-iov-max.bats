#!/usr/bin/env bats
# A writev() that the library would cork (its bytes end right after an
# NBD header) keeps writev's own answers: the library makes it a
# sendmsg(MSG_MORE) only for 1 to 16 iovecs, where both calls agree.
# Before, IOV_MAX + 1 iovecs got sendmsg's EMSGSIZE instead of EINVAL.
# bats file_tags=sanitize

load helpers

@test "IOV_MAX + 1 iovecs after an NBD header: EINVAL, as plain" {
  edge_calls_agree iov-max
  assert_line --regexp '^nbd writev IOV_MAX \+ 1 iovecs += -1 EINVAL$'
  assert_line --regexp '^nbd sendmsg IOV_MAX \+ 1 iovecs += -1 EMSGSIZE$'
  assert_line --regexp '^nbd writev IOV_MAX iovecs += 28 \(errno untouched\)$'
}
