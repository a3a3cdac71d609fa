#!/usr/bin/env bats
# sockboost doctor measures this host's unix ceiling: a raw socketpair
# moving 2 MiB replies with the default send buffer and with the one the
# library would request, in turns; the ratio it prints is that of the
# throughputs it prints, the buffer the one requested, and the JSON says
# the same.  Only the arithmetic and the shape are checked: the gain
# itself depends on the host and its load.
load helpers

# The row of the report and its two continuation lines.
ceiling_rows () { grep -A2 '^  unix ceiling ' <<<"$1"; }

@test "the ceiling row: ratio of the medians it prints, the requested buffer, a verdict" {
  local rows ratio boosted plain
  run "$SOCKBOOST" doctor
  assert_success
  rows=$(ceiling_rows "$output")
  echo "$rows"
  [[ $rows =~ unix\ ceiling\ +([0-9]+\.[0-9]+)x:\ tb\ $BOOSTED_TB\ against\ the\ default,\ (faster\ in\ every\ round|slower\ in\ every\ round|no\ clear\ difference:\ faster\ in\ [1-4]\ of\ 5\ rounds) ]] ||
    fail "no ceiling row of the expected form"
  ratio=${BASH_REMATCH[1]}
  [[ $rows =~ no\ library:\ ([0-9.]+)\ against\ ([0-9.]+)\ GiB/s ]] || fail "no throughputs"
  boosted=${BASH_REMATCH[1]} plain=${BASH_REMATCH[2]}
  # The GiB/s are rounded to 0.01: the ratio agrees within that.
  awk -v r="$ratio" -v b="$boosted" -v p="$plain" \
    'BEGIN { lo = (b - 0.005) / (p + 0.005); hi = (b + 0.005) / (p - 0.005)
             exit !(r >= lo - 0.005 && r <= hi + 0.005) }' ||
    fail "ratio $ratio is not $boosted / $plain"
}

@test "the ceiling follows SOCKBOOST_SNDBUF, and is not measured when it is off" {
  SOCKBOOST_SNDBUF=1M run "$SOCKBOOST" doctor
  assert_output --regexp "unix ceiling +[0-9.]+x: tb 2097152 against the default"
  SOCKBOOST_SNDBUF=0 run "$SOCKBOOST" doctor
  assert_output --regexp "unix ceiling +not measured: the send buffer part is off"
}

@test "doctor --json: unix_ceiling agrees with itself, null when off" {
  requires jq
  run "$SOCKBOOST" doctor --json
  assert_success
  run jq -e '.unix_ceiling | .tb == '"$BOOSTED_TB"' and .rounds == 5
      and (.faster_rounds >= 0 and .faster_rounds <= 5)
      and ((.boosted_bytes_per_second / .default_bytes_per_second) - .ratio | fabs) < 0.006' <<<"$output"
  assert_success
  SOCKBOOST_SNDBUF=off run "$SOCKBOOST" doctor --json
  run jq -e '.unix_ceiling == null' <<<"$output"
  assert_success
}
