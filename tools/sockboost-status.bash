# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# sockboost status: the sockets of a running process, their peers, and whether they are boosted.
# Sourced by tools/sockboost, which defines the helpers used here.

# ---- status ----------------------------------------------------------------

status_usage () {
  cat <<USAGE
Usage: $PROG status [--json] PID
List the unix stream and TCP sockets of process PID, listening and
connected: file descriptors, type, state, send buffer (tb, as ss reports
it), whether it is boosted, the peer process, the local address; and
whether libsockboost.so is loaded in the process.

  --json       print one JSON object instead of the table
  -h, --help   show this help
USAGE
}

# Whether a unix socket's tb shows a boost; a listener's does not matter:
# each accepted socket gets its own buffer.
unix_verdict () {
  local state=$1 tb=$2 default=$3
  if [ "$state" = LISTEN ]; then
    echo "n/a (listening)"
  elif [ "$tb" = "?" ] || [ "$default" = unknown ]; then
    echo "unknown"
  elif [ "$tb" -gt "$default" ]; then
    echo "yes"
  elif [ "$tb" -eq "$default" ]; then
    echo "no (default)"
  else
    echo "no (below default)"
  fi
}

# TCP grows its send buffer by itself, up to tcp_wmem's last value, so
# only a buffer above that proves an explicit SO_SNDBUF.
tcp_verdict () {
  local state=$1 tb=$2 max=$3
  if [ "$state" = LISTEN ]; then
    echo "n/a (listening)"
  elif [ "$tb" != "?" ] && [ "$tb" -gt "$max" ]; then
    echo "yes (above autotuning)"
  else
    echo "n/a (autotuned)"
  fi
}

verdict_of () {
  if [ "$1" = unix ]; then
    unix_verdict "$2" "$3" "$WMEM_DEFAULT"
  else
    tcp_verdict "$2" "$3" "$TCP_MAX"
  fi
}

# A verdict as JSON: true, false, or null when ss cannot tell.
verdict_json () {
  case $1 in
    yes*) echo true ;;
    no*) echo false ;;
    *) echo null ;;
  esac
}

check_status_target () {
  local pid=$1
  [ -d "/proc/$pid" ] || die "status: no process $pid"
  ls "/proc/$pid/fd" >/dev/null 2>&1 ||
    die "status: process $pid: not permitted to inspect its sockets (run as its owner or root)"
}

# Sets COMM and MAPPED (the library's path in PID's maps, or empty).
read_process () {
  local pid=$1
  COMM=$(cat "/proc/$pid/comm" 2>/dev/null || echo '?')
  MAPPED=$(grep -o '/[^ ]*libsockboost[^ /]*\.so' "/proc/$pid/maps" 2>/dev/null | sort -u | head -1 || true)
}

# Print the rows (on stdin) as a table whose columns fit their widest
# entry; the local address, which may be a long path, comes last.
print_socket_table () {
  local -a cells widths=(2 4 5 2 7 4)
  local type fds state address _lj _ino tb peer _pj row=() i n=0 format="  "
  while IFS=$'\t' read -r type fds state address _lj _ino tb peer _pj; do
    row=("$fds" "$type" "$state" "$tb" "$(verdict_of "$type" "$state" "$tb")" "$peer")
    for i in "${!row[@]}"; do
      ((${#row[i]} <= widths[i])) || widths[i]=${#row[i]}
      cells[n * 7 + i]=${row[i]}
    done
    cells[n * 7 + 6]=$address
    n=$((n + 1))
  done
  for i in "${widths[@]}"; do format+="%-${i}s  "; done
  format+="%s\n"
  # shellcheck disable=SC2059 # the format holds only widths
  printf "$format" FD TYPE STATE TB BOOSTED PEER LOCAL
  for ((i = 0; i < n; i++)); do
    # shellcheck disable=SC2059
    printf "$format" "${cells[@]:i * 7:7}"
  done
}

status_text () {
  local pid=$1 rows=$2
  echo "process $pid ($(shown "$COMM"))"
  if [ -n "$MAPPED" ]; then
    echo "  libsockboost.so: loaded ($(shown "$MAPPED"))"
  else
    echo "  libsockboost.so: not loaded"
  fi
  if [ -z "$rows" ]; then
    echo "  no unix stream or TCP sockets, listening or connected"
    return 0
  fi
  print_socket_table <<<"$rows"
  if ! cut -f 3 <<<"$rows" | grep -qvx LISTEN; then
    echo "  listening only: no client is connected now; the library tunes each"
    echo "  connection as the program accepts it."
  fi
  if grep -q '^unix' <<<"$rows"; then
    echo "  unix: default tb is net.core.wmem_default ($WMEM_DEFAULT); above it means boosted"
    echo "        (by the library or by the program itself)."
  fi
  if grep -q '^tcp' <<<"$rows"; then
    echo "  tcp:  tb starts at $TCP_DEFAULT and autotunes up to $TCP_MAX, so ss cannot show a"
    echo "        boost; TCP_NODELAY is not visible to ss at all (the library sets it when loaded)."
  fi
}

status_json () {
  local pid=$1 rows=$2 type fds state _l local_json ino tb _p peer_json verdict sep="" library=null
  [ -z "$MAPPED" ] || library=$(json_str "$MAPPED")
  printf '{"pid": %s, "name": %s, "library": %s, "wmem_default": %s, "tcp_wmem": [%s, %s, %s], "sockets": [' \
    "$pid" "$(json_str "$COMM")" "$library" "$(json_number "$WMEM_DEFAULT")" \
    "$TCP_MIN" "$TCP_DEFAULT" "$TCP_MAX"
  while IFS=$'\t' read -r type fds state _l local_json ino tb _p peer_json; do
    [ -n "$type" ] || continue
    verdict=$(verdict_of "$type" "$state" "$tb")
    printf '%s\n  {"fds": [%s], "type": "%s", "state": %s, "local": %s, "inode": %s, "tb": %s, "boosted": %s, "verdict": %s, "peer": %s}' \
      "$sep" "$fds" "$type" "$(json_str "$state")" "$local_json" "$ino" \
      "$(json_number "$tb")" "$(verdict_json "$verdict")" "$(json_str "$verdict")" "$peer_json"
    sep=,
  done <<<"$rows"
  printf '%s]}\n' "${sep:+$'\n'}"
}

cmd_status () {
  local pid="" json=0 rows
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) status_usage; exit 0 ;;
      --json) json=1 ;;
      -*) usage_error "status: unknown option '$1'" ;;
      *) [ -z "$pid" ] || usage_error "status: unexpected argument '$1'"
         [[ $1 =~ ^[0-9]{1,10}$ ]] || usage_error "status: '$1' is not a process id"
         pid=$((10#$1)) ;;
    esac
    shift
  done
  [ -n "$pid" ] || usage_error "status: no PID given"
  command -v ss >/dev/null || die "status: ss is missing (install iproute2)"
  check_status_target "$pid"
  WMEM_DEFAULT=$(sysctl_value wmem_default)
  read -r TCP_MIN TCP_DEFAULT TCP_MAX </proc/sys/net/ipv4/tcp_wmem
  read_process "$pid"
  rows=$(socket_rows "$pid")
  if [ "$json" -eq 1 ]; then
    status_json "$pid" "$rows"
  else
    status_text "$pid" "$rows"
  fi
}
