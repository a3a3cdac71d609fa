#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Host mode loads each part on its own: a part the kernel refuses takes
# none of the others down.  Debian 12's 6.12.117 refuses the program of
# the getsockname_unix hook (bpf_getsockopt is not allowed there); here
# the same refusal is made by strace, which fails the loads of that one
# program (bpf EINVAL, both libbpf's try and its retry for the log):
# enable turns tcp-bind, tcp-connect and unix-connect on and unix-accept
# off, says why, and status says the same from the settings; a client's
# unix socket is raised, the socket a server accepts is not.

load helpers

@test "host enable: the kernel refuses unix-accept, the other parts load and work" {
  hm_setup
  requires strace
  local log=$BATS_TEST_TMPDIR/strace.log n enabled
  enabled=$(hm_enable)
  grep -q '^  unix: send buffer' <<<"$enabled" ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later): $enabled"
  hm_host disable >/dev/null
  # Where the self-test loads that program among the loader's bpf calls.
  strace -o "$log" -e trace=bpf "$HM_SB_HOST" enable --cgroup "$HM_CGROUP" \
    --pin-dir "$HM_PINS" >/dev/null
  hm_host disable >/dev/null
  n=$(grep '^bpf(' "$log" | grep -n '' | grep -m 1 'prog_name="sb_host_unix_ge"' | cut -d: -f1)
  [ -n "$n" ] || fail "no load of sb_host_unix_getsockname among the bpf calls: $(cat "$log")"
  run strace -o /dev/null -e trace=bpf -e inject=bpf:error=EINVAL:when="$n..$((n + 1))" \
    "$SOCKBOOST" host enable --cgroup "$HM_CGROUP" --pin-dir "$HM_PINS"
  assert_success
  echo "$output" | grep 'parts\|unix:' >&3
  assert_line "  parts: tcp-bind on, tcp-connect on, unix-connect on, unix-accept off"
  assert_line --partial "  tcp: TCP_NODELAY on the connections they make, and on their listeners"
  assert_line --regexp "^  unix: send buffer of the stream sockets they connect raised to $BOOSTED_TB, never lowered \(self-test passed\); not of those they accept: the kernel refused sb_host_unix_getsockname: .+$"
  run hm_host status --json
  assert_success
  [ "$(jq -c '[.parts[] | .on]' <<<"$output")" = '[true,true,true,false]' ] ||
    fail "status does not have unix-accept alone off: $(jq -c .parts <<<"$output")"
  [ "$(jq -r '.parts["unix-accept"].why' <<<"$output")" != null ] ||
    fail "status gives no reason for unix-accept: $(jq -c .parts <<<"$output")"
  # The tuning's programs; the counting's (stalls_*) are a part of their own.
  [ "$(jq -c '[.links[].name | select(startswith("stalls_") | not)]' <<<"$output")" = '["bind4","bind6","connect4","connect6","connect_unix"]' ] ||
    fail "wanted every program but getsockname_unix attached: $output"
  [ "$(hm_attached_ids "$HM_CGROUP")" = "$(jq -r '.links[].program_id' <<<"$output" | sort -n)" ] ||
    fail "the cgroup holds other programs than status names: $(hm_attached_ids "$HM_CGROUP")"
  run hm_in_cgroup "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-sockopts.py" --name qemu-nbd
  assert_success
  [ "$(jq -c '[.tcp_nodelay, .unix_sndbuf]' <<<"$output")" = "[[1,1],[$BOOSTED_TB,$DEFAULT_TB]]" ] ||
    fail "wanted TCP_NODELAY both ways, the client's unix buffer raised and the accepted one not: $output"
}
