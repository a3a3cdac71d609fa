#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# enable's adoption of the listeners that were there before it looks at
# the sockets of the cgroup's processes while it holds the pin
# directory's lock, and users choose how many processes and sockets
# they have: it stops at 4096 processes and 65536 sockets, says so, and
# leaves the rest as they were.  Here four processes named qemu-nbd hold
# a listener and 17,000 unix sockets each (68,004 in all; a process may
# hold 20,000 here): each listener, a process's first socket, is
# adopted, the walk stops in the last one, and enable says it stopped.

load helpers

@test "host enable: the adoption stops at its bound of sockets looked at, and says so" {
  hm_setup
  local i deadline
  for i in 1 2 3 4; do
    (exec "${HM_IN_CGROUP[@]}" "$HM_CGROUP" python3 "$SB_TESTS_DIR/host-socket-hoard.py" \
       qemu-nbd 17000 >"$BATS_TEST_TMPDIR/hoard.$i") 3>&- &
    kill_at_teardown $!
  done
  deadline=$((SECONDS + 120))
  for i in 1 2 3 4; do
    until grep -q '^ready' "$BATS_TEST_TMPDIR/hoard.$i" 2>/dev/null; do
      [ $SECONDS -lt $deadline ] || fail "the processes did not make their sockets within 120 s"
      sleep 0.2
    done
  done
  local start=$(date +%s.%N)
  run hm_host enable --cgroup "$HM_CGROUP"
  assert_success
  echo "enable took $(awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { printf "%.2f", end - start }') s: $(grep 'there already\|bound' <<<"$output")" >&3
  assert_line "  tcp: listeners that were there already: 4, of 4 processes the filter takes, got TCP_NODELAY too"
  assert_line "  tcp: that stopped at its bound of 4096 processes and 65536 sockets looked at: those beyond were left as they were"
}
