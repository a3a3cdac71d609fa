#!/usr/bin/env bats
# SOCKBOOST_STATS=1: when a tuned socket closes, one line gives the bytes
# it sent, its send calls and the calls the library corked.  Checked
# against strace of the same run: the sum of what each send returned,
# the number of sends, the number that carry MSG_MORE.

load helpers

setup () {
  requires strace
  start_sbnbd_tcp memory:64M
}

@test "stats line matches the sends strace saw (256 split 4 KiB writes)" {
  local trace=$BATS_TEST_TMPDIR/trace
  run strace -f -o "$trace" -e trace=sendto,sendmsg,write,writev -e signal=none \
    env LD_PRELOAD="$(preload_value)" SOCKBOOST_STATS=1 "$SBNBD_CLIENT" -q \
    --split-writes --request-size 4K --queue-depth 1 --length 1M write pattern "$NBD_URI"
  assert_success
  local line fd bytes calls corked
  line=$(grep -E '^sockboost\[sbnbd-client [0-9]+\]: fd [0-9]+ stats: ' <<< "$output")
  echo "$line" >&3
  read -r fd bytes calls corked < <(sed -E \
    's/.*: fd ([0-9]+) stats: ([0-9]+) bytes sent in ([0-9]+) calls, ([0-9]+) corked$/\1 \2 \3 \4/' <<< "$line")
  # What strace saw on that descriptor (the resolver's netlink socket,
  # which once had the same number, excluded).
  run awk -v fd="$fd" '
    $2 ~ "^(sendto|sendmsg|write|writev)\\(" fd "," && !/AF_NETLINK/ && $NF ~ /^[0-9]+$/ {
      n++; s += $NF; if (/MSG_MORE/) m++ }
    END { print n, s, m + 0 }' "$trace"
  echo "strace: calls bytes corked = $output" >&3
  assert_output "$calls $bytes $corked"
  # 256 requests of 28 + 4096 bytes went out, each header corked.
  [ "$bytes" -ge $((256 * (28 + 4096))) ]
  [ "$corked" -eq 256 ]
}
