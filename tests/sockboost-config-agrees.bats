#!/usr/bin/env bats
# What sb-config says the library decides (the entry point doctor, status
# and run ask) is what the library really does: for a table of
# environments, every SOCKBOOST_* variable with good and bad values, a
# probe under the library gets the tb sb-config predicts on each of its
# unix sockets (getsockopt), and the library prints exactly the warnings
# sb-config lists; doctor --json and run's option checks say the same.
# Nothing here restates a rule: each side is asked, and they must agree.
bats_require_minimum_version 1.5.0
load helpers

SB_CONFIG=$SB_ROOT/tools/sb-config
WMEM_MAX=$(cat /proc/sys/net/core/wmem_max)
# Above wmem_max but within what the library takes (1G).
ABOVE_MAX=$((2 * WMEM_MAX <= 1 << 30 ? 2 * WMEM_MAX : 1 << 30))

# The table: one environment a line, assignments separated by '|'
# (values may hold blanks); an empty line is the defaults.
environments () {
  local v
  echo ""
  for v in 1M 2M 4M 64K 1 300000 1G 1024M 0 0T 00000000000001M off "" "$ABOVE_MAX" \
      1k 3X OFF 2G 1T -1 1.5M ' 2M' '2M ' 99999999999999999999 $'2Q"\x01\t' 1073741825; do
    echo "SOCKBOOST_SNDBUF=$v"
  done
  for v in auto on off yes ''; do
    echo "SOCKBOOST_FORCE=$v"
    echo "SOCKBOOST_SNDBUF=$ABOVE_MAX|SOCKBOOST_FORCE=$v"
  done
  for v in 0 1 off on no yes maybe; do echo "SOCKBOOST_NODELAY=$v"; done
  for v in auto off on; do echo "SOCKBOOST_CORK=$v"; done
  for v in all nbd some; do echo "SOCKBOOST_SCOPE=$v"; done
  for v in 0 1 2 7; do echo "SOCKBOOST_DEBUG=$v|SOCKBOOST_SNDBUF=3X"; done
  for v in 1 0 x; do echo "SOCKBOOST_STATS=$v"; done
  echo "SOCKBOOST_LOG_FILE=$BATS_TEST_TMPDIR/log-%p|SOCKBOOST_SNDBUF=3X|SOCKBOOST_DEBUG=2"
  echo "SOCKBOOST_SNDBUF=9Q|SOCKBOOST_FORCE=x|SOCKBOOST_NODELAY=x|SOCKBOOST_CORK=x|SOCKBOOST_SCOPE=x|SOCKBOOST_STATS=x"
}

# sb-config's value for KEY (its first line) in its output OUT.
field () { awk -F '\t' -v k="$1" '$1 == k { sub(/^[^\t]*\t/, ""); print; exit }' <<<"$2"; }

# The warning lines of sb-config's output OUT.
predicted_warnings () { awk -F '\t' '$1 == "warning" { print $2 }' <<<"$1"; }

# The assignments of environment ROW, in ASSIGNMENTS.
split_row () {
  ASSIGNMENTS=()
  [ -z "$1" ] || IFS='|' read -r -a ASSIGNMENTS <<<"$1"
}

# Run the probe under the library in environment ROW, with PREFIX...
# before it (e.g. setpriv dropping CAP_NET_ADMIN); leave its tbs in
# PROBE_TBS and the lines the library logged in PROBE_LOG.
run_probe () {
  local dir=$BATS_TEST_TMPDIR/probe pid deadline=$((SECONDS + 10))
  split_row "$1"
  rm -rf "$dir" "$BATS_TEST_TMPDIR"/log-*
  mkdir -p "$dir"
  "${@:2}" env "${ASSIGNMENTS[@]}" LD_PRELOAD="$LIBSOCKBOOST" "$SB_BUILD/tools/sb-probe" --tb \
    "$dir/p.sock" >"$dir/out" 2>"$dir/err" 3>&- &
  pid=$!
  until grep -qx ready "$dir/out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || fail "sb-probe exited: $(cat "$dir/err")"
    [ $SECONDS -lt $deadline ] || fail "sb-probe not ready in 10 s"
    sleep 0.02
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  PROBE_TBS=$(sed -n 's/^tb //p' "$dir/out" | sort -u)
  PROBE_LOG=$(cat "$dir/err" "$BATS_TEST_TMPDIR"/log-* 2>/dev/null |
    sed 's/^sockboost\[sb-probe [0-9]*\]: //')
}

# sb-config's output in environment ROW, with PREFIX... before it.
predict () {
  split_row "$1"
  "${@:2}" env "${ASSIGNMENTS[@]}" "$SB_CONFIG" || fail "sb-config failed for '$1'"
}

# The warnings the library printed are those predicted; at debug 2 its
# settings line is sb-config's (its other lines report each socket).
compare_logs () {
  local predicted=$1 lines=$2 warnings=""
  [ "$(field warnings_printed "$predicted")" = 0 ] || warnings=$(predicted_warnings "$predicted")
  assert_equal "$(grep -v -e '^settings: ' -e '^fd ' <<<"$lines")" "$warnings"
  if grep -q '^settings: ' <<<"$lines"; then
    assert_equal "$(grep '^settings: ' <<<"$lines")" "$(field settings "$predicted")"
  fi
}

# Require the library and sb-config to agree in environment ROW, with
# PREFIX... before both.
check_agreement () {
  local predicted want
  predicted=$(predict "$@")
  run_probe "$@"
  # A probe that speaks no NBD keeps the tb it had under scope nbd.
  if [ "$(field scope "$predicted")" = nbd ]; then
    want=$(field before "$predicted")
  else
    want=$(field tb "$predicted")
  fi
  [ "$PROBE_TBS" = "$want" ] ||
    fail "'$1' ${2:+($2)}: the probe got tb $PROBE_TBS, sb-config says $want"
  compare_logs "$predicted" "$PROBE_LOG"
}

# A prefix that starts a process without CAP_NET_ADMIN (a command, not a
# function: the probe's pid must be the probe's).
WITHOUT_NET_ADMIN=(setpriv --bounding-set=-net_admin)

@test "every environment of the table: the tb and the warnings sb-config predicts" {
  local row
  while IFS= read -r row; do
    check_agreement "$row"
  done < <(environments)
}

@test "without CAP_NET_ADMIN: what the library does when wmem_max clips" {
  requires setpriv
  [ "$ABOVE_MAX" -gt "$WMEM_MAX" ] || skip "net.core.wmem_max is 1G or more: nothing to clip"
  local row
  for row in "SOCKBOOST_SNDBUF=$ABOVE_MAX" "SOCKBOOST_SNDBUF=$ABOVE_MAX|SOCKBOOST_FORCE=on" \
      "SOCKBOOST_SNDBUF=1G" "" "SOCKBOOST_SNDBUF=1G|SOCKBOOST_DEBUG=0"; do
    check_agreement "$row" "${WITHOUT_NET_ADMIN[@]}"
  done
  run "${WITHOUT_NET_ADMIN[@]}" "$SB_CONFIG"
  assert_line "can_force	0"
}

# doctor --json's expected tb and warnings in environment ROW (PREFIX...
# before it) are the library's.
check_doctor () {
  local predicted json
  predicted=$(predict "$@")
  run_probe "$@"
  split_row "$1"
  json=$("${@:2}" env "${ASSIGNMENTS[@]}" "$SOCKBOOST" doctor --json) ||
    fail "doctor failed for '$1': $json"
  assert_equal "$(jq -r .expected_tb <<<"$json")" "$PROBE_TBS"
  assert_equal "$(jq -r '.warnings[]' <<<"$json")" "$PROBE_LOG"
  assert_equal "$PROBE_LOG" "$(predicted_warnings "$predicted")"
}

@test "doctor --json expects the tb and lists the warnings the library gives" {
  requires jq ss setpriv
  check_doctor ""
  check_doctor "SOCKBOOST_SNDBUF=3X|SOCKBOOST_FORCE=x"
  check_doctor "SOCKBOOST_SNDBUF=off"
  check_doctor "SOCKBOOST_SNDBUF=64K"
  check_doctor "SOCKBOOST_SNDBUF=$ABOVE_MAX"
  [ "$ABOVE_MAX" -le "$WMEM_MAX" ] || check_doctor "SOCKBOOST_SNDBUF=$ABOVE_MAX" "${WITHOUT_NET_ADMIN[@]}"
}

@test "sockboost run takes the --sndbuf and --scope values the library takes" {
  local variable option value
  for variable in SOCKBOOST_SNDBUF SOCKBOOST_SCOPE; do
    option=--$(tr 'A-Z' 'a-z' <<<"${variable#SOCKBOOST_}")
    for value in 1M 0 off 1G 64K 3X OFF 2G 1T 0T 00000000000001M -1 1.5M ' 2M' 1073741825 \
        all nbd some; do
      run_probe "$variable=$value"
      run "$SOCKBOOST" run "$option" "$value" -- true
      if grep -q "$variable" <<<"$PROBE_LOG"; then
        assert_failure 2
      else
        assert_success
      fi
    done
  done
}
