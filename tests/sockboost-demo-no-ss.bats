#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make demo on a system without ss (iproute2 is not in a minimal Debian):
# the throughputs are measured all the same, the send buffer column says
# it is unknown and why, and the report says what is missing and which
# package brings it, where the reader looks (no bare '?').
load helpers
bats_require_minimum_version 1.5.0

FIGURE='[0-9]+\.[0-9]+'

@test "without ss the demo names what is missing and how to get it" {
  local bin=$BATS_TEST_TMPDIR/bin f
  mkdir "$bin"
  # Everything on the usual PATH but ss.
  for f in /usr/bin/* /usr/sbin/*; do
    [ "${f##*/}" = ss ] || ln -sf "$f" "$bin/"
  done
  [ ! -e "$bin/ss" ]
  PATH=$bin run --separate-stderr "$SB_ROOT/tools/demo" --tcp off --size 64M --rounds 1
  assert_success
  assert_line --regexp "^plain +unknown: no ss +$FIGURE "
  assert_line --regexp "^boosted +unknown: no ss +$FIGURE "
  assert_line '  (send buffers not shown: ss is missing: it comes with iproute2 (Debian: apt-get install iproute2))'
  refute_output --partial '?'
}
