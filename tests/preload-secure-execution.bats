#!/usr/bin/env bats
# Loaded system-wide (/etc/ld.so.preload) into a setuid program that an
# unprivileged user starts with hostile SOCKBOOST_* values, the library
# reads none of them: no file created (not even in root's home), no line
# of the user's choosing written anywhere, the program runs as it does
# without the library, and sockets are still tuned at the defaults.
#
# All of it happens in a private mount namespace (unshare -m) where a copy
# of /etc holding an ld.so.preload is bind-mounted over /etc and a tmpfs
# over /root: the host's /etc and /root are never touched, and the mounts
# go away with the namespace when its last process exits, on failure too.

load helpers

setup () {
  [ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace and setpriv"
  requires unshare setpriv passwd ss
  # Readable by nobody: the loader opens the library as the user for the
  # unprivileged processes of the scenario (env, setpriv's child).
  T=$(mktemp -d /tmp/sb-secure.XXXXXX)
  cleanup_push "rm -rf '$T'"
  chmod 0755 "$T"
  mkdir -m 0755 "$T/bin" "$T/out"
  chmod 0777 "$T/out"
  # A setuid-root copy of the socket probe: it prints the send buffer the
  # kernel gave its socketpair, so the library's work in a secure process
  # shows.
  install -m 4755 -o root "$PRELOAD_SOCKETS" "$T/bin/preload-sockets"
  # The library too: the checkout may be closed to nobody (under /root).
  install -m 0644 "$LIBSOCKBOOST" "$T/libsockboost.so"
  HOST_ETC_BEFORE=$(host_etc_state)
}

# What must not change on the host: /etc itself and its ld.so.preload.
host_etc_state () {
  stat -c '%d:%i' /etc
  ls -la /etc/ld.so.preload 2>&1 || true
}

# The scenario, run inside the namespace: T LIB are the arguments.
in_namespace () {
  set -eu
  local T=$1 lib=$2 i
  local hostile=(
    SOCKBOOST_SNDBUF=$'bogus\n* * * * * root touch /tmp/sb-pwned\n'
    SOCKBOOST_FORCE=$'\e[2J\e]0;owned\a'
    SOCKBOOST_SCOPE=$'all\r\nroot:x:0:0::/root:/bin/sh'
    SOCKBOOST_DEBUG=3 SOCKBOOST_STATS=1 SOCKBOOST_CORK=off
    SOCKBOOST_LOG_FILE=/root/sb-%p.log
  )
  local as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

  # Without the library first: what passwd normally says and returns.
  for who in root nobody; do
    "${as_nobody[@]}" passwd -S "$who" > "$T/out/plain-$who" 2>&1 &&
      echo 0 > "$T/out/plain-$who.rc" || echo $? > "$T/out/plain-$who.rc"
  done

  cp -a /etc "$T/etc"
  echo "$lib" > "$T/etc/ld.so.preload"
  mount --bind "$T/etc" /etc
  mount -t tmpfs -o mode=0700 sb-root /root

  for who in root nobody; do
    "${as_nobody[@]}" env "${hostile[@]}" passwd -S "$who" \
      > "$T/out/boosted-$who" 2>&1 &&
      echo 0 > "$T/out/boosted-$who.rc" || echo $? > "$T/out/boosted-$who.rc"
  done

  # The setuid probe, with a valid size the library would honour if it
  # read the environment (1M: tb 2097152; the default 2M: tb 4194304).
  "${as_nobody[@]}" env "${hostile[@]}" SOCKBOOST_SNDBUF=1M \
    "$T/bin/preload-sockets" pair stream > "$T/out/probe" 2>&1 &
  probe_pid=$!
  trap 'kill $probe_pid 2>/dev/null || true' EXIT
  for ((i = 0; i < 200; i++)); do
    grep -qx holding "$T/out/probe" && break
    sleep 0.05
  done
  ss -xmpn | awk -v pid="pid=$probe_pid," '
    /^u_str/ { mine = index($0, pid) > 0 }
    mine && /skmem:/ { match($0, /tb[0-9]+/); print substr($0, RSTART + 2, RLENGTH - 2); mine = 0 }' \
    > "$T/out/probe-tb"
  kill $probe_pid
  wait $probe_pid 2>/dev/null || true

  # Control: the same values in a program that is not setuid are read,
  # and the library, loaded there as well, says so in escaped lines.
  "${as_nobody[@]}" env "${hostile[@]}" SOCKBOOST_LOG_FILE= \
    sh -c 'exit 0' > "$T/out/control" 2>&1

  find /root -mindepth 1 > "$T/out/root-files"
  ls /tmp/sb-pwned > "$T/out/pwned" 2>&1 || true
}

@test "ld.so.preload + setuid passwd run by nobody: hostile SOCKBOOST_* values ignored" {
  local problem
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  # In a chroot, in a private bind of the root (tests/helpers-namespaces.bash).
  run private_mount_ns timeout 60 \
    bash -c "$(declare -f in_namespace); in_namespace \"\$@\"" _ "$T" "$T/libsockboost.so"
  assert_success
  local o=$T/out

  # The host's /etc is as it was: same directory, no ld.so.preload added.
  [ "$(host_etc_state)" = "$HOST_ETC_BEFORE" ]
  run findmnt -n /etc
  assert_output ''

  # passwd behaved exactly as without the library (same output, same status).
  for who in root nobody; do
    diff "$o/plain-$who" "$o/boosted-$who"
    diff "$o/plain-$who.rc" "$o/boosted-$who.rc"
  done
  # The check can fail: nobody may not view root's entry, but its own.
  [ "$(cat "$o/boosted-root.rc")" -ne 0 ]
  grep -q '^nobody ' "$o/boosted-nobody"

  # No file anywhere in root's home, no payload file.
  run cat "$o/root-files"
  assert_output ''
  run cat "$o/pwned"
  assert_output --partial 'No such file'

  # The setuid probe was tuned at the defaults, not at SOCKBOOST_SNDBUF=1M,
  # and the library printed nothing there.
  run cat "$o/probe-tb"
  assert_output "$(printf '%s\n%s' "$BOOSTED_TB" "$BOOSTED_TB")"
  run grep -cE "^pair fd [0-9]+ sndbuf $BOOSTED_TB\$" "$o/probe"
  assert_output 2
  run grep -cv '^pair fd \|^holding$' "$o/probe"
  assert_output 0

  # The control shows the library was loaded and reading in the namespace:
  # one escaped warning per bad variable, and not one line of the payloads.
  run grep -c '^sockboost\[sh [0-9]*\]: ignoring SOCKBOOST_' "$o/control"
  assert_output 3
  grep -qF "ignoring SOCKBOOST_SNDBUF='bogus\\n* * * * * root touch /tmp/sb-pwned\\n'" "$o/control"
  grep -qF "ignoring SOCKBOOST_FORCE='\\x1b[2J\\x1b]0;owned\\x07'" "$o/control"
  run grep -c -v '^sockboost\[sh [0-9]*\]: ' "$o/control"
  assert_output 0

  # Nowhere a line that starts with a payload, nor an escape character.
  run grep -rlE $'^(\\* \\* \\*|root:x:0)|\e' "$o"
  assert_output ''
}
