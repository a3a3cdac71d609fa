#!/usr/bin/env bats
# An installed sockboost uses the installed library, and runs the benchmark
# from its library directory with the installed programs, not the source
# tree's.
bats_require_minimum_version 1.5.0
load helpers

setup () {
  requires make python3
  PREFIX=$BATS_TEST_TMPDIR/prefix
  install_tree "$PREFIX"
}

# The values of column NAME of a CSV file with a header line.
csv_column () {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
    { print $c }' "$1"
}

@test "an installed sockboost bench --help works" {
  run --separate-stderr "$PREFIX/bin/sockboost" bench --help
  assert_success
  assert_line --index 0 --partial "Usage: sockboost bench"
  assert_output --partial --workloads
}

@test "the installed scripts and pages name no path of the source tree" {
  # -I: the programs' debug information names their build directory.
  run grep -rlIF -- "$SB_ROOT" "$PREFIX"
  assert_failure 1
  assert_output ""
}

@test "an installed bench runs its helper programs and the installed library" {
  local out=$BATS_TEST_TMPDIR/out
  run env -u SOCKBOOST_LIBRARY "$PREFIX/bin/sockboost" bench --quick --workloads socketpair,sbnbd,overhead \
    --out "$out"
  assert_success
  # Every run succeeded, each workload ran, and each sbnbd run at 2M had
  # its sockets tuned by the (installed) library.
  run grep -vE '^workload,|,ok,' "$out/runs.csv"
  assert_output ""
  run csv_column "$out/runs.csv" workload
  assert_equal "$(sort -u <<<"$output" | tr '\n' ' ')" "overhead sbnbd socketpair "
  run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["workload"] == "sbnbd" && $col["config"] == "2M" {
      runs++; if ($col["tuned"] > 0) tuned++ }
    END { print runs + 0, tuned + 0 }' "$out/runs.csv"
  local runs tuned
  read -r runs tuned <<<"$output"
  [ "$runs" -gt 0 ] && [ "$tuned" -eq "$runs" ] ||
    fail "$runs sbnbd runs at 2M, $tuned of them with tuned sockets"
}

@test "the installed sockboost uses the installed library" {
  run env -u SOCKBOOST_LIBRARY "$PREFIX/bin/sockboost" run -- cat /proc/self/maps
  assert_success
  assert_output --partial "$PREFIX/lib/sockboost/libsockboost.so"
}


@test "the installed sockboost finds the parts of its commands" {
  requires ss
  run env -u SOCKBOOST_LIBRARY "$PREFIX/bin/sockboost" status $$
  assert_success
  assert_output --partial "process $$ "
  run env -u SOCKBOOST_LIBRARY "$PREFIX/bin/sockboost" run -- true
  assert_success
}
