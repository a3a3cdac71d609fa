# SPDX-License-Identifier: MIT
# Shared bats helpers: paths, requirements, cleanup stack, bounded waits,
# and reading socket options from outside with ss.  Load with
#   load helpers
# Area-specific helpers live in tests/helpers-*.bash and are loaded here.

# This file's own directory: tests/compat/*.bats load it as ../helpers.
SB_TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SB_ROOT=${SB_ROOT:-${SB_TESTS_DIR%/tests}}
SB_BUILD=${SB_BUILD:-$SB_ROOT}
LIBSOCKBOOST=$SB_BUILD/preload/libsockboost.so
SBNBD_SERVER=$SB_BUILD/nbd/sbnbd-server
SBNBD_CLIENT=$SB_BUILD/nbd/sbnbd-client
SOCKBOOST=$SB_ROOT/tools/sockboost
# The kernel doubles an SO_SNDBUF request: 2 MiB asked is 4 MiB granted.
DEFAULT_TB=$(cat /proc/sys/net/core/wmem_default)
BOOSTED_TB=4194304
export SB_ROOT SB_BUILD LIBSOCKBOOST SBNBD_SERVER SBNBD_CLIENT SOCKBOOST

load_bats_library () {
  local dir
  for dir in /usr/lib/bats /usr/lib/node_modules /usr/local/lib/bats; do
    if [ -f "$dir/$1/load.bash" ]; then
      load "$dir/$1/load.bash"
      return 0
    fi
  done
  echo "bats library $1 is missing: run 'make check' as root to install it" >&2
  return 1
}
load_bats_library bats-support
load_bats_library bats-assert

# Skip the test, saying why.  In strict mode (SB_STRICT=1: make check
# STRICT=1, which CI runs) a skip is a failure instead, so that CI runs
# every test; tests/run-tests fails any other skip there too.
sb_skip () {
  if [ "${SB_STRICT:-}" = 1 ]; then
    fail "skipped, which strict mode (SB_STRICT=1) does not allow: $*"
  fi
  skip "$*"
}

# Skip unless every TOOL is on PATH, naming those missing.  'make check'
# installs them as root on Debian (tests/install-deps); elsewhere, or as
# another user, a test whose tool is missing says so and skips.
requires () {
  local cmd missing=()
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null || missing+=("$cmd")
  done
  [ ${#missing[@]} -eq 0 ] ||
    sb_skip "needs ${missing[*]}, not installed (tests/install-deps installs it as root)"
}

# Skip only for what cannot exist on this machine; always say why.
skip_unless_cap_net_admin () {
  requires capsh
  if ! capsh --has-p=cap_net_admin 2>/dev/null; then
    sb_skip "needs CAP_NET_ADMIN, which this process does not have"
  fi
}

# The library to preload, with libasan first when testing the ASan build.
preload_value () {
  if [ -n "${SB_SANITIZED:-}" ]; then
    echo "$(cc -print-file-name=libasan.so):$LIBSOCKBOOST"
  else
    echo "$LIBSOCKBOOST"
  fi
}

# Command prefix for running our programs under valgrind when asked.
vg () {
  if [ -n "${SB_VALGRIND:-}" ]; then
    valgrind -q --error-exitcode=99 --leak-check=full "$@"
  else
    "$@"
  fi
}

# ---- cleanup stack: commands run in reverse order in teardown ----
SB_CLEANUP=()
cleanup_push () { SB_CLEANUP+=("$1"); }
cleanup_run () {
  local i
  for ((i = ${#SB_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${SB_CLEANUP[i]}" || true
  done
  SB_CLEANUP=()
}
# Checks run after the cleanup (e.g. a background server's log scanned
# for sanitizer reports); unlike cleanups, a failing check fails the test.
SB_CHECKS=()
check_at_teardown () { SB_CHECKS+=("$1"); }
teardown () {
  local c status=0
  cleanup_run
  for c in "${SB_CHECKS[@]}"; do
    eval "$c" || status=1
  done
  SB_CHECKS=()
  return $status
}

# Stop PID at teardown: SIGTERM, then SIGKILL if it has not exited within
# 5 s (a qemu-nbd busy in a TLS handshake under load was seen to outlive
# SIGTERM, and a plain 'wait' then hung the whole run).
kill_at_teardown () {
  cleanup_push "stop_process $1"
}

stop_process () {
  local pid=$1 i
  kill "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
  for ((i = 0; i < 100; i++)); do
    process_gone "$pid" && break
    sleep 0.05
  done
  process_gone "$pid" || kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# Whether PID has exited: gone, or a zombie its parent has not reaped yet.
process_gone () {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [ "${stat%% *}" = Z ]
}

# Wait up to SECONDS (default 10) for PATH to exist and be non-empty.
wait_for_file () {
  local path=$1 deadline=$((SECONDS + ${2:-10}))
  until [ -s "$path" ]; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for $path" >&2; return 1; }
    sleep 0.05
  done
}

# Wait up to SECONDS (default 10) for a unix socket to exist.
wait_for_socket () {
  local path=$1 deadline=$((SECONDS + ${2:-10}))
  until [ -S "$path" ]; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for $path" >&2; return 1; }
    sleep 0.05
  done
}

# Wait up to SECONDS (default 10) until process PID runs the program
# PROGRAM (/proc/PID/exe): a process started through a wrapper (setpriv,
# unshare, env) has exec'd it.
wait_for_exe () {
  local pid=$1 program=$2 deadline=$((SECONDS + ${3:-10}))
  until [ "$(readlink "/proc/$pid/exe")" = "$program" ]; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for pid $pid to run $program" >&2; return 1; }
    sleep 0.05
  done
}

# A free TCP port on loopback (the kernel picks it).
free_tcp_port () {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Print the send buffer (tb) of every unix stream socket PID holds, one per line.
# Piped, ss prints skmem on the socket's own line; on a terminal, on the next.
unix_tbs_of_pid () {
  ss -xmpn 2>/dev/null | awk -v pid="pid=$1," '
    /^u_str/ { mine = index($0, pid) > 0 }
    mine && /skmem:/ { match($0, /tb[0-9]+/); print substr($0, RSTART + 2, RLENGTH - 2); mine = 0 }'
}

# Print the send buffer (tb) of every TCP socket PID holds, one per line.
tcp_tbs_of_pid () {
  ss -tmpn 2>/dev/null | awk -v pid="pid=$1," '
    /^[A-Z]/ { mine = index($0, pid) > 0 }
    mine && /skmem:/ { match($0, /tb[0-9]+/); print substr($0, RSTART + 2, RLENGTH - 2); mine = 0 }'
}

for sb_helper in "$SB_TESTS_DIR"/helpers-*.bash; do
  [ -e "$sb_helper" ] && source "$sb_helper"
done
unset sb_helper
