#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# On Linux 6.7 and later host mode raises the send buffer of the unix
# stream sockets of the NBD programs in its cgroup, from the kernel's
# unix socket hooks: the socket qemu-io connects, and qemu-nbd's socket
# accepted from it, get what the library's default (2M, doubled) gives,
# as ss shows.  A qemu-io outside the cgroup keeps the kernel's default,
# and so does qemu-nbd's socket accepted from it: the kernel makes a
# server's unix socket in the connecting process, and counts it in that
# process's cgroup.

load helpers

# The tb of the unix socket that process SERVER accepted from process
# CLIENT (its peer), as ss shows them on one line each when piped.
accepted_tb () {
  ss -xmpn | awk -v server="pid=$1," -v client="pid=$2," '
    index($0, client) { peer[$6] = 1 }
    index($0, server) { tb[$8] = $0 }
    END { for (i in peer) if (i in tb) { match(tb[i], /tb[0-9]+/)
          print substr(tb[i], RSTART + 2, RLENGTH - 2) } }'
}

@test "host mode: unix sockets of qemu-nbd and its client in the cgroup get 4 MiB, a client outside keeps the default" {
  requires qemu-nbd qemu-io ss
  hm_setup
  local enabled
  enabled=$(hm_enable)
  grep -q '^  unix: send buffer' <<<"$enabled" ||
    sb_skip "this kernel has no unix socket hooks (Linux 6.7 and later): $enabled"
  # enable's report says it once, and nothing that contradicts it.
  ! grep -q '^  unix: not turned on' <<<"$enabled" ||
    fail "enable says unix is both on and not: $enabled"
  local img=$BATS_TEST_TMPDIR/disk.img sock=$BATS_TEST_TMPDIR/nbd.sock
  truncate -s 1M "$img"
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" qemu-nbd -r -t -e 2 -f raw -k "$sock" "$img") 3>&- &
  local server=$!
  kill_at_teardown "$server"
  wait_for_socket "$sock"
  # Each client holds its connection while it sleeps (qemu-io's sleep).
  (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" qemu-io -r -f raw -c 'sleep 20000' \
     "nbd+unix:///?socket=$sock") 3>&- &
  local inside=$!
  kill_at_teardown "$inside"
  qemu-io -r -f raw -c 'sleep 20000' "nbd+unix:///?socket=$sock" 3>&- &
  local outside=$!
  kill_at_teardown "$outside"
  local deadline=$((SECONDS + 20)) tbs
  until [ "$(unix_tbs_of_pid "$server" | wc -l)" -eq 2 ] &&
      [ -n "$(unix_tbs_of_pid "$inside")" ] && [ -n "$(unix_tbs_of_pid "$outside")" ]; do
    [ $SECONDS -lt $deadline ] || fail "the clients did not connect within 20 s"
    sleep 0.1
  done
  tbs="$(unix_tbs_of_pid "$inside") $(accepted_tb "$server" "$inside")"
  tbs+=" $(unix_tbs_of_pid "$outside") $(accepted_tb "$server" "$outside")"
  echo "qemu-io and qemu-nbd's socket, in the cgroup then outside: $tbs" >&3
  [ "$tbs" = "$BOOSTED_TB $BOOSTED_TB $DEFAULT_TB $DEFAULT_TB" ] ||
    fail "wanted $BOOSTED_TB for both sockets of the connection in the cgroup, $DEFAULT_TB outside"
}
