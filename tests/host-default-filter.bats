#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Under the default filter host mode tunes the NBD programs of a cgroup
# and nothing else there: a program of another name in the same cgroup
# keeps Nagle on its TCP connections (TCP_NODELAY reads 0) and the
# kernel's default send buffer on its unix stream sockets, while the
# same program named qemu-nbd gets both (the unix part on Linux 6.7
# and later).

load helpers

@test "host mode, default filter: a non-NBD program keeps Nagle and its unix buffer size; one named qemu-nbd gets both" {
  local unix_tb=$DEFAULT_TB
  hm_setup
  hm_enable | grep -q '^  unix: send buffer' && unix_tb=$BOOSTED_TB
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py"
  assert_success
  echo "python3: $output" >&3
  [ "$(jq -c .tcp_nodelay <<<"$output")" = "[0,0]" ] || fail "python3's TCP got TCP_NODELAY: $output"
  [ "$(jq -c .unix_sndbuf <<<"$output")" = "[$DEFAULT_TB,$DEFAULT_TB]" ] ||
    fail "python3's unix sockets changed size: $output"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" --name qemu-nbd
  assert_success
  echo "qemu-nbd: $output" >&3
  [ "$(jq -c .tcp_nodelay <<<"$output")" = "[1,1]" ] || fail "qemu-nbd's TCP kept Nagle: $output"
  [ "$(jq -c .unix_sndbuf <<<"$output")" = "[$unix_tb,$unix_tb]" ] ||
    fail "qemu-nbd's unix sockets: wanted $unix_tb: $output"
}
