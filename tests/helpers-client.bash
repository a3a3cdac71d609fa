# SPDX-License-Identifier: MIT
# Helpers for the sbnbd-client tests (prefix cl_): start independent NBD
# servers on private sockets, each stopped at teardown.  Sourced by
# helpers.bash.

# NBD URI for a unix socket and an optional export name.
cl_unix_uri () { echo "nbd+unix:///${2:-}?socket=$1"; }

# Wait up to SECONDS (default 10) for something to listen on 127.0.0.1:PORT.
cl_wait_for_tcp_port () {
  local port=$1 deadline=$((SECONDS + ${2:-10}))
  until ss -Htln "sport = :$port" 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || { echo "timed out waiting for port $port" >&2; return 1; }
    sleep 0.05
  done
}

# qemu-nbd serving raw FILE on unix socket SOCK; extra ARGS follow.
cl_start_qemu_nbd () {
  local sock=$1 file=$2
  shift 2
  requires qemu-nbd
  qemu-nbd -t -f raw -k "$sock" "$@" "$file" 3>&- &
  kill_at_teardown $!
  wait_for_socket "$sock"
}

# qemu-nbd serving raw FILE on 127.0.0.1; prints nothing, sets QEMU_PORT.
cl_start_qemu_nbd_tcp () {
  local file=$1
  shift
  requires qemu-nbd
  QEMU_PORT=$(free_tcp_port)
  qemu-nbd -t -f raw -p "$QEMU_PORT" -b 127.0.0.1 "$@" "$file" 3>&- &
  kill_at_teardown $!
  cl_wait_for_tcp_port "$QEMU_PORT"
}

# nbdkit in the foreground on unix socket SOCK: cl_start_nbdkit SOCK PLUGIN ARGS...
cl_start_nbdkit () {
  local sock=$1
  shift
  requires nbdkit
  nbdkit -f -U "$sock" "$@" 3>&- &
  kill_at_teardown $!
  wait_for_socket "$sock"
}

# nbd-server exporting FILE as NAME on unix socket SOCK; extra config
# lines for the export may follow.  With -d it would serve one client and
# exit, so it runs as the daemon it wants to be, found by its pid file.
cl_start_nbd_server () {
  local sock=$1 file=$2 name=$3 dir=$BATS_TEST_TMPDIR/nbd-server.$$
  shift 3
  requires nbd-server
  mkdir -p "$dir"
  {
    printf '[generic]\nunixsock = %s\nallowlist = true\n' "$sock"
    printf '[%s]\nexportname = %s\n' "$name" "$file"
    printf '%s\n' "$@"
  } > "$dir/conf"
  nbd-server -C "$dir/conf" -p "$dir/pid" 3>&- || return 1
  cleanup_push "kill \$(cat '$dir/pid') 2>/dev/null"
  wait_for_file "$dir/pid" && wait_for_socket "$sock"
}

# FILE of SIZE bytes of random data.
cl_random_file () {
  head -c "$2" /dev/urandom > "$1"
}

# The scripted server of tests/nbd-client-fake-server.py on unix socket
# SOCK playing SCENARIO.
cl_start_fake_server () {
  requires python3
  python3 "$SB_ROOT/tests/nbd-client-fake-server.py" "$@" 3>&- &
  kill_at_teardown $!
  wait_for_socket "$1"
}

# sbnbd-client with a bound on its run time, under valgrind when asked.
cl_client () {
  if [ -n "${SB_VALGRIND:-}" ]; then
    timeout 120 valgrind -q --error-exitcode=99 --leak-check=full "$SBNBD_CLIENT" "$@"
  else
    timeout 60 "$SBNBD_CLIENT" "$@"
  fi
}

# Wait (bounded, 30 s) until server PID holds an established unix stream
# connection: a client that is slow to start (valgrind) has then connected,
# so killing the server hits it mid-transfer and not before it connects.
cl_wait_for_connection () {
  local pid=$1 deadline=$((SECONDS + 30))
  until ss -xpn state established 2>/dev/null | grep -q "pid=$pid,"; do
    [ $SECONDS -lt $deadline ] || { echo "no client connected to pid $pid" >&2; return 1; }
    sleep 0.05
  done
}
