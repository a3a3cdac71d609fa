#!/usr/bin/env bats
# sockboost doctor reports the kernel limits and proves, from outside,
# that a probe under the library gets the send buffer it should.
load helpers

wmem_max () { cat /proc/sys/net/core/wmem_max; }

# Run doctor without CAP_NET_ADMIN, dropping it when we have it.
doctor_without_net_admin () {
  if capsh --has-p=cap_net_admin 2>/dev/null; then
    setpriv --bounding-set -net_admin "$SOCKBOOST" doctor
  else
    "$SOCKBOOST" doctor
  fi
}

# A request above wmem_max that the kernel can still represent.
above_wmem_max () {
  local want=$(($(wmem_max) * 2))
  [ "$want" -le 1073741823 ] || skip "net.core.wmem_max is too large to exceed here"
  echo "$want"
}

@test "with defaults the self-test passes with a 2 MiB buffer" {
  requires ss
  run "$SOCKBOOST" doctor
  assert_success
  assert_output --regexp "net.core.wmem_default +$DEFAULT_TB "
  assert_output --regexp "net.core.wmem_max +$(wmem_max) "
  assert_output --regexp "requested +2097152 bytes"
  assert_output --regexp "library +$LIBSOCKBOOST"
  assert_output --partial "self-test              PASS: tb $BOOSTED_TB on all 4 unix sockets"
}

@test "the self-test fails when the library does not boost" {
  requires ss
  local libc
  libc=$(grep -o '/[^ ]*/libc\.so\.6' /proc/self/maps | head -1)
  SOCKBOOST_LIBRARY=$libc run "$SOCKBOOST" doctor
  assert_failure 1
  assert_output --partial "FAIL: expected tb $BOOSTED_TB"
  assert_output --partial "ss shows: $DEFAULT_TB"
}

@test "a library that does not load fails, with the loader's reason" {
  requires ss
  echo "not an ELF file" >"$BATS_TEST_TMPDIR/broken.so"
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/broken.so run "$SOCKBOOST" doctor
  assert_failure 1
  assert_output --partial "library loads          NO: not mapped into the probe"
  assert_output --partial "cannot be preloaded"
  assert_output --partial "FAIL: the library did not load"
}

@test "a missing library fails" {
  SOCKBOOST_LIBRARY=$BATS_TEST_TMPDIR/none.so run "$SOCKBOOST" doctor
  assert_failure 1
  assert_output --partial "MISSING: $BATS_TEST_TMPDIR/none.so"
}

@test "with CAP_NET_ADMIN a request above wmem_max is forced" {
  requires ss capsh
  skip_unless_cap_net_admin
  local want
  want=$(above_wmem_max)
  SOCKBOOST_SNDBUF=$want run "$SOCKBOOST" doctor
  assert_success
  assert_output --partial "can force              yes"
  assert_output --partial "honoured               yes, by forcing: tb $((2 * want)); programs without CAP_NET_ADMIN get tb $((2 * $(wmem_max)))"
  assert_output --partial "PASS: tb $((2 * want)) "
}

@test "without CAP_NET_ADMIN a request above wmem_max is clipped, with the fix" {
  requires ss capsh setpriv
  local want
  want=$(above_wmem_max)
  SOCKBOOST_SNDBUF=$want run doctor_without_net_admin
  assert_success
  assert_output --partial "can force              no"
  assert_output --partial "NO: clipped to wmem_max $(wmem_max): tb $((2 * $(wmem_max)))"
  assert_output --partial "sysctl -w net.core.wmem_max=$want"
  assert_output --partial "echo 'net.core.wmem_max = $want' > /etc/sysctl.d/"
  assert_output --partial "PASS: tb $((2 * $(wmem_max))) "
}

@test "SOCKBOOST_SNDBUF=off expects the default buffer" {
  requires ss
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" doctor
  assert_success
  assert_output --partial "PASS: tb $DEFAULT_TB "
}

@test "doctor takes no arguments" {
  run "$SOCKBOOST" doctor extra
  assert_failure 2
}

@test "CAP_NET_ADMIN over a network the user namespace does not own cannot force: doctor knows" {
  requires ss unshare
  local want
  want=$(above_wmem_max)
  unshare -U -r true 2>/dev/null || skip "user namespaces are not available here"
  SOCKBOOST_SNDBUF=$want run unshare -U -r "$SOCKBOOST" doctor
  assert_success
  assert_output --partial "can force              no"
  assert_output --partial "NO: clipped to wmem_max $(wmem_max): tb $((2 * $(wmem_max)))"
  assert_output --partial "PASS: tb $((2 * $(wmem_max))) "
}
