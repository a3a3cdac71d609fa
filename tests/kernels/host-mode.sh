#!/bin/bash
# SPDX-License-Identifier: MIT
# In a guest booted by tests/kernels/run (Debian 11's userland, this
# checkout's Debian 11 package installed): sockboost host enable on a
# cgroup; qemu-nbd 5.2, started by a plain exec inside it, serves an
# 8 MiB image with a 4 KiB extent every 128 KiB, which qemu-img 5.2 dd
# copies over TCP in a network namespace of its own (whose TcpExt
# DelayedACKs count that copy's stalls); the same copies from a cgroup
# host mode does not cover, and over a unix socket (the stall-free
# reference), interleaved.  TAP on stdout.  EXPECT_TCP_BY (kernel or
# watcher) is what status must name for the TCP part on this kernel.
set -u

CG=/sys/fs/cgroup/nbd PLAIN=/sys/fs/cgroup/plain IMG=/tmp/sparse.img
ROUNDS=${ROUNDS:-3}
tests=0 failed=0

check () {
  local what=$1; shift
  tests=$((tests + 1))
  if "$@"; then
    echo "ok $tests - $what"
  else
    failed=$((failed + 1))
    echo "not ok $tests - $what"
  fi
}

say () { printf '# %s\n' "$@"; }

# TcpExt DelayedACKs of this network namespace.
acks () {
  awk '$1 == "TcpExt:" { if (!h) { for (i = 1; i <= NF; i++) n[i] = $i; h = 1 }
                         else for (i = 1; i <= NF; i++) if (n[i] == "DelayedACKs") print $i }' \
    /proc/net/netstat
}
export -f acks

# One copy: qemu-nbd started by a plain exec inside cgroup CG serves IMG
# over KIND (tcp or unix); qemu-img dd, in this script's cgroup, copies
# it; both in a network namespace of their own.  Prints "SECONDS
# DELAYED_ACKS same|different".
copy () {
  unshare -n bash -c '
    kind=$1 cg=$2 img=$3
    ip link set lo up
    if [ "$kind" = tcp ]; then
      uri=nbd://127.0.0.1:10809/ listen=(-b 127.0.0.1 -p 10809) probe=(-Hltn "sport = :10809")
    else
      uri="nbd+unix:///?socket=/tmp/nbd.sock" listen=(-k /tmp/nbd.sock) probe=(-Hlx "src /tmp/nbd.sock")
    fi
    sh -c "echo \$\$ > $cg/cgroup.procs && exec qemu-nbd -r -t -f raw ${listen[*]} $img" &
    server=$!
    until ss "${probe[@]}" | grep -q .; do sleep 0.01; done
    a0=$(acks) t0=$EPOCHREALTIME
    qemu-img dd -f raw -O raw bs=128k if="$uri" of=/tmp/copy.img
    t1=$EPOCHREALTIME a1=$(acks)
    kill $server; wait $server 2>/dev/null
    cmp -s "$img" /tmp/copy.img && same=same || same=different
    rm -f /tmp/copy.img
    awk -v a="$t0" -v b="$t1" -v d=$((a1 - a0)) -v s="$same" \
      "BEGIN { printf \"%.3f %d %s\n\", b - a, d, s }"' _ "$1" "$2" "$IMG"
}

median () { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Field NAME of the JSON object on stdin, in Python's words (True, None).
json () {
  python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1]))' "$1" 2>/dev/null
}

mkdir "$CG" "$PLAIN"
python3 - "$IMG" <<'PY'
import os, sys
with open(sys.argv[1], "wb") as f:
    f.truncate(8 << 20)
    for off in range(0, 8 << 20, 128 << 10):
        f.seek(off)
        f.write(os.urandom(4096))
PY

say "$(. /etc/os-release && echo "$PRETTY_NAME"); $(qemu-nbd --version | head -n 1)"
say "sockboost $(dpkg-query -W -f '${Version}' sockboost), $(sockboost --version)"
sockboost host enable --cgroup "$CG" > /tmp/enable.out 2>&1
status=$?
sed 's/^/#   /' /tmp/enable.out
check "sockboost host enable --cgroup exits 0" test "$status" -eq 0
sockboost host status > /tmp/status.out 2>&1
sed 's/^/#   /' /tmp/status.out
sockboost host status --json > /tmp/status.json 2>&1
tcp_by=$(json tcp_by < /tmp/status.json)
check "status names the TCP part's mechanism: $tcp_by (expected: $EXPECT_TCP_BY)" \
  test "$tcp_by" = "$EXPECT_TCP_BY"
check "status: on and whole" test "$(json on < /tmp/status.json) $(json whole < /tmp/status.json)" = "True True"

declare -A times acks_of
all_same=yes
for ((r = 1; r <= ROUNDS; r++)); do
  for run in "tcp $PLAIN plain-tcp" "tcp $CG host-tcp" "unix $PLAIN unix"; do
    set -- $run
    read -r t a s < <(copy "$1" "$2")
    say "round $r $3: $t s, $a delayed ACKs, $s"
    times[$3]+="$t " acks_of[$3]+="$a "
    [ "$s" = same ] || all_same=no
  done
done
for k in plain-tcp host-tcp unix; do
  say "$k: median $(median ${times[$k]}) s (${times[$k]}), delayed ACKs ${acks_of[$k]}"
done
check "every copy identical to the image" test "$all_same" = yes
sockboost host status --json > /tmp/status.json 2>&1
bound=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1])).get("tuned") or []
print(sum(r.get("tcp_bind", 0) for r in rows if r.get("program") == "qemu-nbd"))' /tmp/status.json 2>/dev/null)
check "status counts qemu-nbd's listeners: ${bound:-none} (one a round)" test "${bound:-0}" -ge "$ROUNDS"
check "the stall is there without host mode: 30 or more delayed ACKs a copy (${acks_of[plain-tcp]})" \
  awk -v l="${acks_of[plain-tcp]}" 'BEGIN { n = split(l, v, " "); for (i = 1; i <= n; i++) if (v[i] < 30) exit 1 }'
check "host mode removes it: at most 2 delayed ACKs a copy (${acks_of[host-tcp]})" \
  awk -v l="${acks_of[host-tcp]}" 'BEGIN { n = split(l, v, " "); for (i = 1; i <= n; i++) if (v[i] > 2) exit 1 }'
check "host mode's TCP copy within 1.5x of the unix one: $(median ${times[host-tcp]}) s against $(median ${times[unix]}) s" \
  awk -v t="$(median ${times[host-tcp]})" -v u="$(median ${times[unix]})" 'BEGIN { exit !(t <= 1.5 * u) }'

# What disable must take away is there: so the checks after it can fail.
attached () { bpftool cgroup show "$CG" | awk '$1 ~ /^[0-9]+$/' | wc -l; }
ours () { bpftool prog show | grep -c ' name sb_'; }
watchers () { pgrep -f 'sb-host watch' | wc -l; }
say "before disable: $(attached) programs attached to the cgroup, $(ours) of ours loaded, $(watchers) watcher processes"
check "programs attached to the cgroup and loaded, seen from outside (bpftool)" \
  test "$(attached)" -gt 0 -a "$(ours)" -gt 0
if [ "$EXPECT_TCP_BY" = watcher ]; then
  check "the watcher runs (pgrep)" test "$(watchers)" -eq 1
fi

sockboost host disable > /tmp/disable.out 2>&1
status=$?
sed 's/^/#   /' /tmp/disable.out
check "sockboost host disable exits 0" test "$status" -eq 0
check "status says off" test "$(sockboost host status --json | json on)" = False
check "no pin left in /sys/fs/bpf/sockboost" test -z "$(ls -A /sys/fs/bpf/sockboost 2>/dev/null)"
check "nothing attached to the cgroup (bpftool cgroup show)" test "$(attached)" -eq 0
check "no watcher process left" test "$(watchers)" -eq 0
# A program goes once its last reference does (links, pins, fds).
for i in $(seq 50); do
  left=$(ours)
  [ "$left" -eq 0 ] && break
  sleep 0.1
done
check "no program of ours left in the kernel (bpftool prog show)" test "$left" -eq 0
echo "1..$tests"
[ "$failed" -eq 0 ]
