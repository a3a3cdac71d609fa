#!/usr/bin/env bats
# A buffer the kernel answers with EFAULT (NULL, unmapped, PROT_NONE, a
# bad iovec or msghdr, a bad iovec right after a valid NBD header) gets
# exactly what it gets without the library: the library reads a send's
# bytes ahead of it only through the kernel, and what a write() reports
# sent only through the kernel too (/dev/null takes bytes unread).
# Before, the library's framing read them first and the program died of
# SIGSEGV on TCP, NBD, unix (scope nbd) and reused socket numbers.
# Not in the sanitized pass: ASan's own interceptors check the program's
# buffers after a write to /dev/null "succeeds".

load helpers

@test "bad buffers on TCP, NBD and reused numbers: what plain gets" {
  edge_calls_agree invalid
  # The cases do reach the kernel's refusal, and nothing died.
  assert_line --regexp '^tcp send NULL += -1 EFAULT$'
  assert_line --regexp '^nbd writev READ header, NULL += -1 EFAULT$'
  assert_line --regexp '^nbd send header then PROT_NONE += -1 EFAULT$'
  assert_line --regexp '^/dev/null reusing write \(void \*\) 1 += 100 \(errno untouched\)$'
  refute_output --partial 'killed by'
}

@test "the same with scope nbd, where unix sockets are followed too" {
  edge_calls_agree invalid SOCKBOOST_SCOPE=nbd
  assert_line --regexp '^unix sendmsg NULL iov_base += -1 EFAULT$'
}
