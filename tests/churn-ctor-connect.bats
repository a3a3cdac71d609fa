#!/usr/bin/env bats
# A library constructor that connects and accepts before main() gets its
# sockets tuned and its data through, whether it loads before or after
# libsockboost (the hooks bind their real functions on first use).
# bats file_tags=sanitize

load helpers

setup () {
  CTOR_LIB=$BATS_TEST_TMPDIR/libctor.so
  cc -shared -fPIC -o "$CTOR_LIB" "$SB_ROOT/tests/churn-ctor-connect.c"
  export CTOR_SOCKET=$BATS_TEST_TMPDIR/ctor.sock
}

@test "without the library the constructor's sockets keep the default" {
  LD_PRELOAD=$CTOR_LIB run /bin/true
  assert_output "ctor: connect tb $DEFAULT_TB accept tb $DEFAULT_TB data ok"
}

@test "constructor loaded after libsockboost: both ends tuned, data intact" {
  LD_PRELOAD=$(preload_value):$CTOR_LIB run /bin/true
  assert_success
  assert_output "ctor: connect tb $BOOSTED_TB accept tb $BOOSTED_TB data ok"
}

@test "constructor loaded before libsockboost: both ends tuned, data intact" {
  local lib=$CTOR_LIB:$LIBSOCKBOOST
  # libasan must come first of all when the library is the ASan build.
  [ -z "${SB_SANITIZED:-}" ] || lib=$(cc -print-file-name=libasan.so):$lib
  LD_PRELOAD=$lib run /bin/true
  assert_success
  assert_output "ctor: connect tb $BOOSTED_TB accept tb $BOOSTED_TB data ok"
}
