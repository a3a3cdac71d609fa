# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# sockboost doctor: the limits, the planned buffer, a live self-test, the NBD programs.
# Sourced by tools/sockboost, which defines the helpers used here.

load_part programs

# ---- doctor ----------------------------------------------------------------

doctor_usage () {
  cat <<USAGE
Usage: $PROG doctor [--json]
Show the kernel limits that decide the send buffer, whether this user can
exceed them, and run a live self-test of the library; measure what a
bigger unix send buffer gains on this host (a raw socketpair, default
buffer against the requested one, about a second); then list the NBD
programs on PATH (qemu-nbd, qemu-img, nbdkit, nbdcopy, nbdinfo, nbd-server)
with their versions and what the library changes for each.  Reads the same
SOCKBOOST_* variables as the library.  Exit status 0 when the self-test
passes, 1 when it fails.

  --json       print one JSON object instead of the report
  -h, --help   show this help
USAGE
}

# A report row, or nothing under --json (which prints the facts at the end).
row () {
  [ "$JSON" -eq 1 ] || printf '  %-22s %s\n' "$1" "$2"
}

say () {
  [ "$JSON" -eq 1 ] || echo "$@"
}

# A malformed variable: one row, and one entry of the JSON warnings.
WARNINGS=()
config_warning () {
  row "$1" "$2"
  WARNINGS+=("$2")
}

# The send buffer the library should obtain, in bytes of request; sets
# REQUEST, EFFECTIVE (what the kernel grants before doubling) and FORCED.
plan_buffer () {
  local text=${SOCKBOOST_SNDBUF:-$DEFAULT_SNDBUF} force=${SOCKBOOST_FORCE:-auto}
  if ! REQUEST=$(size_to_bytes "$text"); then
    config_warning "requested" "SOCKBOOST_SNDBUF='$(shown "$text")' is invalid, so the library uses $DEFAULT_SNDBUF; it takes $SIZE_FORMS"
    REQUEST=$(size_to_bytes "$DEFAULT_SNDBUF")
  fi
  case $force in
    auto|on|off) ;;
    *) config_warning "force" "SOCKBOOST_FORCE='$(shown "$force")' is invalid (auto, on or off): the library uses auto"
       force=auto ;;
  esac
  FORCED=no
  EFFECTIVE=$REQUEST
  if [ "$REQUEST" -gt "$WMEM_MAX" ]; then
    EFFECTIVE=$WMEM_MAX
    if [ "$force" != off ] && [ "$CAN_FORCE" = yes ]; then
      EFFECTIVE=$REQUEST FORCED=yes
    fi
  fi
}

report_limits () {
  WMEM_DEFAULT=$(sysctl_value wmem_default)
  WMEM_MAX=$(sysctl_value wmem_max)
  [ "$WMEM_MAX" != unknown ] || die "doctor: cannot read /proc/sys/net/core/wmem_max"
  row "net.core.wmem_default" "$WMEM_DEFAULT (a unix socket's send buffer without the library)"
  row "net.core.wmem_max" "$WMEM_MAX (the most SO_SNDBUF may request)"
  if has_cap_net_admin; then
    CAN_FORCE=yes
    row "can force" "yes: CAP_NET_ADMIN, so SO_SNDBUFFORCE may exceed wmem_max"
  else
    CAN_FORCE=no
    row "can force" "no: no CAP_NET_ADMIN, so wmem_max clips every request"
  fi
}

report_request () {
  plan_buffer
  if [ "$REQUEST" -eq 0 ]; then
    row "requested" "off (SOCKBOOST_SNDBUF=${SOCKBOOST_SNDBUF:-}): unix send buffers are left alone"
    return
  fi
  if [ "$REQUEST" -gt "$MAX_REQUEST" ]; then
    row "requested" "$REQUEST bytes, asked as $MAX_REQUEST (the kernel doubles it into an int: tb $(granted_tb "$REQUEST"))"
  else
    row "requested" "$REQUEST bytes (the kernel doubles it: tb $(granted_tb "$REQUEST"))"
  fi
  if [ "$REQUEST" -le "$WMEM_MAX" ]; then
    row "honoured" "yes: the request is within wmem_max"
  elif [ "$FORCED" = yes ]; then
    row "honoured" "yes, by forcing; programs without CAP_NET_ADMIN get $WMEM_MAX"
  else
    row "honoured" "NO: clipped to wmem_max $WMEM_MAX"
  fi
  if [ "$REQUEST" -gt "$WMEM_MAX" ]; then
    say "  to lift the limit now, and at every boot:"
    say "    sysctl -w net.core.wmem_max=$REQUEST"
    say "    echo 'net.core.wmem_max = $REQUEST' > /etc/sysctl.d/90-sockboost.conf"
  fi
}

report_library () {
  if [ -f "$LIBRARY" ]; then
    row "library" "$LIBRARY"
    return 0
  fi
  row "library" "MISSING: $LIBRARY (build it with 'make', or set SOCKBOOST_LIBRARY)"
  VERDICT="FAIL: the library is missing: $LIBRARY"
  return 1
}

# ---- this host's unix ceiling ------------------------------------------------

# What a bigger send buffer can gain on this host now, with no library and
# no NBD program involved: a raw socketpair moving 2 MiB NBD read replies
# with the default buffer and with the requested one, in turns.  The gain
# depends on the host and its load (from about 2x down to slower than the
# default on machines of one kind), so the report measures it rather than
# promising one.
CEILING_ROUNDS=5
CEILING_BYTES=256M
CEILING=

# One socketpair run with ARGS: its bytes per second and the send buffer
# the kernel granted, on one line.
ceiling_run () {
  local json
  json=$("$TOOLSDIR/sb-socketpair-bench" --json --total "$CEILING_BYTES" "$@" 2>/dev/null) ||
    return 1
  sed -n 's/.*"throughput": \([0-9]*\).*"sndbuf": \([0-9]*\).*/\1 \2/p' <<<"$json"
}

median () {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Sets CEILING (the JSON object, or null) and prints its rows.
report_ceiling () {
  local round plain big p b faster=0 pm bm ratio verdict tb
  CEILING=null
  if [ "$REQUEST" -eq 0 ]; then
    row "unix ceiling" "not measured: the send buffer part is off"
    return 0
  fi
  if [ ! -x "$TOOLSDIR/sb-socketpair-bench" ]; then
    row "unix ceiling" "not measured: $TOOLSDIR/sb-socketpair-bench is missing"
    return 0
  fi
  plain=() big=()
  for ((round = 0; round < CEILING_ROUNDS; round++)); do
    if ! p=$(ceiling_run) || ! b=$(ceiling_run --sndbuf "$REQUEST") ||
       [ -z "$p" ] || [ -z "$b" ]; then
      row "unix ceiling" "not measured: sb-socketpair-bench failed"
      return 0
    fi
    read -r p _ <<<"$p"
    read -r b tb <<<"$b"
    plain+=("$p") big+=("$b")
    [ "$b" -gt "$p" ] && faster=$((faster + 1))
  done
  pm=$(median "${plain[@]}") bm=$(median "${big[@]}")
  ratio=$(awk -v p="$pm" -v b="$bm" 'BEGIN { printf "%.2f", b / p }')
  case $faster in
    "$CEILING_ROUNDS") verdict="faster in every round" ;;
    0) verdict="slower in every round" ;;
    *) verdict="no clear difference: faster in $faster of $CEILING_ROUNDS rounds" ;;
  esac
  row "unix ceiling" "${ratio}x: tb $tb against the default, $verdict"
  row "" "(a raw socketpair moving 2 MiB replies, no library: $(gib "$bm") against $(gib "$pm") GiB/s,"
  row "" "medians of $CEILING_ROUNDS short rounds; what a bigger buffer can gain on this host now;"
  row "" "for a steadier figure: make demo, or sockboost bench --workloads socketpair)"
  CEILING=$(printf '{"ratio": %s, "tb": %s, "default_bytes_per_second": %s, "boosted_bytes_per_second": %s, "rounds": %s, "faster_rounds": %s}' \
    "$ratio" "$(json_number "$tb")" "${pm%.*}" "${bm%.*}" "$CEILING_ROUNDS" "$faster")
}

gib () { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1073741824 }'; }

# ---- doctor's self-test: a probe under the library, read from outside -----

PROBE_PID=
PROBE_DIR=

stop_probe () {
  if [ -n "$PROBE_PID" ]; then
    kill "$PROBE_PID" 2>/dev/null || true
    wait "$PROBE_PID" 2>/dev/null || true
    PROBE_PID=
  fi
  if [ -n "$PROBE_DIR" ]; then
    rm -rf -- "$PROBE_DIR"
    PROBE_DIR=
  fi
}

# Start the probe and wait (bounded) for it to report that its sockets exist.
start_probe () {
  local probe=$TOOLSDIR/sb-probe deadline=$((SECONDS + 10))
  if [ ! -x "$probe" ]; then
    VERDICT="FAIL: probe program missing: $probe (build it with 'make')"
    return 1
  fi
  PROBE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sockboost-doctor.XXXXXX")
  trap stop_probe EXIT
  # Scope nbd would leave a probe that speaks no NBD untouched: test all.
  LD_PRELOAD=$(compose_preload) SOCKBOOST_SCOPE=all SOCKBOOST_DEBUG=2 \
    SOCKBOOST_LOG_FILE="$PROBE_DIR/probe.log" \
    "$probe" "$PROBE_DIR/probe.sock" >"$PROBE_DIR/out" 2>"$PROBE_DIR/err" &
  PROBE_PID=$!
  until grep -qx ready "$PROBE_DIR/out" 2>/dev/null; do
    if ! kill -0 "$PROBE_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      VERDICT="FAIL: probe did not start: $(cat "$PROBE_DIR/err" 2>/dev/null)"
      return 1
    fi
    sleep 0.05
  done
}

expected_tb () {
  if [ "$REQUEST" -eq 0 ] || [ "$(granted_tb "$EFFECTIVE")" -le "$WMEM_DEFAULT" ]; then
    echo "$WMEM_DEFAULT"
  else
    granted_tb "$EFFECTIVE"
  fi
}

# Check the probe's sockets from outside; set VERDICT, fail on FAIL.
judge_probe () {
  local want tbs bad count
  if ! grep -qF -- "$(readlink -f -- "$LIBRARY")" "/proc/$PROBE_PID/maps" 2>/dev/null; then
    row "library loads" "NO: not mapped into the probe $(cat "$PROBE_DIR/err")"
    VERDICT="FAIL: the library did not load"
    return 1
  fi
  row "library loads" "yes: mapped into the probe (pid $PROBE_PID)"
  want=$(expected_tb)
  tbs=$(socket_rows "$PROBE_PID" | awk -F '\t' '$1 == "unix" && $3 == "ESTAB" { print $7 }')
  count=$(echo "$tbs" | grep -c . || true)
  bad=$(echo "$tbs" | grep -vx -- "$want" || true)
  if [ "$count" -lt 4 ] || [ -n "$bad" ]; then
    VERDICT="FAIL: expected tb $want on the probe's 4 unix sockets; ss shows: ${tbs//$'\n'/ }"
    return 1
  fi
  VERDICT="PASS: tb $want on all $count unix sockets of a probe (socketpair, connect, accept)"
}

self_test () {
  local status=0
  VERDICT=
  if ! command -v ss >/dev/null; then
    VERDICT="FAIL: ss is missing (install iproute2)"
    row "self-test" "$VERDICT"
    return 1
  fi
  start_probe && judge_probe || status=1
  row "self-test" "$VERDICT"
  if [ $status -ne 0 ] && [ -s "$PROBE_DIR/probe.log" ] && [ "$JSON" -eq 0 ]; then
    echo "  the probe's library log:"
    sed 's/^/    /' "$PROBE_DIR/probe.log"
  fi
  stop_probe
  return $status
}

# JSON: a list of strings.
json_list () {
  local item sep=""
  printf '['
  for item in "$@"; do
    printf '%s%s' "$sep" "$(json_str "$item")"
    sep=", "
  done
  printf ']'
}

doctor_json () {
  local passed=$1 i sep="" fix=() honoured=yes
  if [ "$REQUEST" -gt "$WMEM_MAX" ]; then
    fix=("sysctl -w net.core.wmem_max=$REQUEST"
         "echo 'net.core.wmem_max = $REQUEST' > /etc/sysctl.d/90-sockboost.conf")
    honoured=$([ "$FORCED" = yes ] && echo forced || echo clipped)
  fi
  [ "$REQUEST" -ne 0 ] || honoured=off
  printf '{"version": %s, "wmem_default": %s, "wmem_max": %s, "can_force": %s,\n' \
    "$(json_str "$VERSION")" "$(json_number "$WMEM_DEFAULT")" "$WMEM_MAX" \
    "$([ "$CAN_FORCE" = yes ] && echo true || echo false)"
  printf ' "requested": %s, "honoured": "%s", "expected_tb": %s, "fix": %s, "warnings": %s,\n' \
    "$REQUEST" "$honoured" "$(expected_tb)" "$(json_list "${fix[@]}")" \
    "$(json_list "${WARNINGS[@]}")"
  printf ' "library": %s, "self_test": {"passed": %s, "verdict": %s},\n' \
    "$(json_str "$LIBRARY")" "$passed" "$(json_str "$VERDICT")"
  printf ' "unix_ceiling": %s,\n' "$CEILING"
  printf ' "programs": ['
  for i in "${!PROGRAM_NAME[@]}"; do
    printf '%s\n  {"name": "%s", "path": %s, "version": %s, "unix": %s, "tcp": %s}' \
      "$sep" "${PROGRAM_NAME[i]}" "$(json_str "${PROGRAM_PATH[i]}")" \
      "$([ -n "${PROGRAM_VERSION[i]}" ] && json_str "${PROGRAM_VERSION[i]}" || echo null)" \
      "$(json_str "${PROGRAM_UNIX[i]}")" "$(json_str "${PROGRAM_TCP[i]}")"
    sep=,
  done
  printf '%s], "missing_programs": %s}\n' "${sep:+$'\n' }" "$(json_list "${MISSING_PROGRAMS[@]}")"
}

cmd_doctor () {
  local passed=true
  JSON=0
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) doctor_usage; exit 0 ;;
      --json) JSON=1 ;;
      -*) usage_error "doctor: unknown option '$1'" ;;
      *) usage_error "doctor: unexpected argument '$1'" ;;
    esac
    shift
  done
  say "$PROG $VERSION doctor"
  report_limits
  report_request
  if report_library; then
    self_test || passed=false
  else
    passed=false
  fi
  report_ceiling
  if [ "$JSON" -eq 1 ]; then
    find_nbd_programs
    doctor_json "$passed"
  else
    report_programs
  fi
  [ "$passed" = true ]
}
