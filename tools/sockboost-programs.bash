# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# sockboost doctor: what the library changes for the NBD programs on PATH.
# Sourced by tools/sockboost, which defines the helpers used here.

# ---- doctor: what the library changes for the NBD programs on PATH ------
#
# Each claim below was checked with strace on the version named (Debian
# 12's QEMU 7.2, nbdkit 1.32, libnbd 1.14, nbd-server 3.24; Debian 13's
# QEMU 10.0, nbdkit 1.42, libnbd 1.22; unstable's QEMU 11.1, nbdkit 1.48,
# libnbd 1.24); the thresholds between are QEMU's own (8.0 corks replies,
# 10.1 sets 2 MiB on its unix sockets).

NBD_PROGRAMS="qemu-nbd qemu-img nbdkit nbdcopy nbdinfo nbd-server"

# The version PROGRAM (at PATH) prints, as digits and dots, or nothing.
program_version () {
  local name=$1 path=$2 text
  case $name in
    nbd-server) text=$(timeout 5 "$path" -V 2>&1 </dev/null) ;;
    nbdcopy|nbdinfo) text=$(timeout 5 "$path" --version 2>&1 </dev/null | grep '^libnbd ') ;;
    *) text=$(timeout 5 "$path" --version 2>&1 </dev/null | head -1) ;;
  esac
  [[ $text =~ [0-9]+\.[0-9]+(\.[0-9]+)? ]] && echo "${BASH_REMATCH[0]}"
}

# True when version A is lower than B (numeric, dot by dot).
version_lt () {
  local -a a b
  local i
  IFS=. read -r -a a <<<"$1"
  IFS=. read -r -a b <<<"$2"
  for i in 0 1 2; do
    ((10#${a[i]:-0} == 10#${b[i]:-0})) || return $((10#${a[i]:-0} > 10#${b[i]:-0}))
  done
  return 1
}

# What the library does to the unix sockets of a program that leaves the
# default buffer, given the planned request (plan_buffer).
unix_raise () {
  if [ "$REQUEST" -eq 0 ]; then
    echo "nothing: SOCKBOOST_SNDBUF is off"
  elif [ "$(granted_tb "$EFFECTIVE")" -le "$WMEM_DEFAULT" ]; then
    echo "nothing: the request is not above the default"
  else
    echo "raises the send buffer to tb $(granted_tb "$EFFECTIVE")"
  fi
}

nodelay_off () {
  case ${SOCKBOOST_NODELAY:-1} in 0|off|no) return 0 ;; esac
  return 1
}

cork_off () {
  [ "${SOCKBOOST_CORK:-auto}" = off ]
}

# Sets UNIX_CHANGE and TCP_CHANGE for PROGRAM at VERSION.
qemu_changes () {
  local name=$1 version=$2
  if version_lt "$version" 10.1; then
    UNIX_CHANGE="$(unix_raise): QEMU before 10.1 leaves the default"
  else
    UNIX_CHANGE="nothing: QEMU 10.1 and later set 2 MiB themselves, just after the library's hook (a larger SOCKBOOST_SNDBUF does not hold)"
  fi
  if [ "$name" = qemu-img ]; then
    TCP_CHANGE="nothing: it sets TCP_NODELAY and corks its requests itself"
  elif ! version_lt "$version" 8.0; then
    TCP_CHANGE="nothing: QEMU 8.0 and later cork each reply themselves (10.0 and 11.1 also set TCP_NODELAY)"
  elif nodelay_off; then
    TCP_CHANGE="nothing, as SOCKBOOST_NODELAY=0 asks: QEMU before 8.0 leaves Nagle on for the sockets it accepts"
  else
    TCP_CHANGE="sets TCP_NODELAY on the sockets it accepts: QEMU before 8.0 leaves Nagle on, so each small reply chunk waits for the client's delayed ACK (about 40 ms)"
  fi
}

libnbd_changes () {
  local version=$1
  if version_lt "$version" 1.23; then
    UNIX_CHANGE="$(unix_raise): libnbd before 1.24 leaves the default"
  elif version_lt "$version" 1.24; then
    UNIX_CHANGE="not checked for libnbd $version (1.22 leaves the default, 1.24 sets 2 MiB itself)"
  elif [ "$EFFECTIVE" -gt $((2 << 20)) ]; then
    UNIX_CHANGE="$(unix_raise): libnbd 1.24 and later set 2 MiB themselves, before connecting"
  else
    UNIX_CHANGE="nothing: libnbd 1.24 and later set 2 MiB themselves"
  fi
  TCP_CHANGE="nothing: libnbd sets TCP_NODELAY and passes MSG_MORE itself"
}

nbdkit_changes () {
  UNIX_CHANGE="$(unix_raise): nbdkit leaves the default"
  TCP_CHANGE="nothing: nbdkit sets TCP_NODELAY and passes MSG_MORE itself"
}

nbd_server_changes () {
  local version=$1
  UNIX_CHANGE="$(unix_raise): nbd-server leaves the default"
  if cork_off; then
    TCP_CHANGE="nothing, as SOCKBOOST_CORK=off asks: nbd-server writes a reply's header and data in separate calls"
  else
    TCP_CHANGE="corks each reply: nbd-server sets TCP_NODELAY itself but writes a reply's header and data in separate calls, so the header would leave as a segment of its own"
  fi
  [ "$version" = 3.24 ] || TCP_CHANGE="$TCP_CHANGE (as checked on 3.24)"
}

# Fill PROGRAM_* arrays for the NBD programs found on PATH, MISSING_PROGRAMS
# with the others.
find_nbd_programs () {
  local name path version n=0
  PROGRAM_NAME=() PROGRAM_PATH=() PROGRAM_VERSION=() PROGRAM_UNIX=() PROGRAM_TCP=()
  MISSING_PROGRAMS=()
  for name in $NBD_PROGRAMS; do
    if ! path=$(type -P -- "$name"); then
      MISSING_PROGRAMS+=("$name")
      continue
    fi
    version=$(program_version "$name" "$path" || true)
    if [ -z "$version" ]; then
      UNIX_CHANGE="unknown: it printed no version" TCP_CHANGE=$UNIX_CHANGE
    else
      case $name in
        qemu-*) qemu_changes "$name" "$version" ;;
        nbdcopy|nbdinfo) libnbd_changes "$version" ;;
        nbdkit) nbdkit_changes ;;
        nbd-server) nbd_server_changes "$version" ;;
      esac
    fi
    PROGRAM_NAME[n]=$name PROGRAM_PATH[n]=$path PROGRAM_VERSION[n]=$version
    PROGRAM_UNIX[n]=$UNIX_CHANGE PROGRAM_TCP[n]=$TCP_CHANGE
    n=$((n + 1))
  done
}

# LABEL and TEXT, TEXT folded at blanks to 78 columns under itself.
folded () {
  local label=$1 text=$2
  fold -s -w $((78 - ${#label})) <<<"$text" | sed -e 's/ *$//' \
    -e "1s/^/$label/" -e "1!s/^/$(printf '%*s' ${#label} '')/"
}

report_programs () {
  local i version
  find_nbd_programs
  echo "  NBD programs on PATH, and what the library changes for each:"
  for i in "${!PROGRAM_NAME[@]}"; do
    version=${PROGRAM_VERSION[i]:-(version unknown)}
    case ${PROGRAM_NAME[i]} in nbdcopy|nbdinfo) version="libnbd $version" ;; esac
    echo "    ${PROGRAM_NAME[i]} $version ($(shown "${PROGRAM_PATH[i]}"))"
    folded "      unix: " "${PROGRAM_UNIX[i]}"
    folded "      tcp:  " "${PROGRAM_TCP[i]}"
  done
  [ ${#MISSING_PROGRAMS[@]} -eq 0 ] || echo "    not on PATH: ${MISSING_PROGRAMS[*]}"
}
