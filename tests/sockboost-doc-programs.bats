#!/usr/bin/env bats
# README and sockboost(1) name the NBD programs of the one table
# (sb-config --programs), no more and no fewer, wherever they list them:
# README's "the NBD programs (...)", and each list in sockboost(1) of
# one '.BR NAME ,' line a program that names qemu-nbd (doctor's and
# host enable's).
bats_require_minimum_version 1.5.0
load helpers

setup () {
  TABLE=$("$SB_BUILD/tools/sb-config" --programs | cut -f2 | sort)
  [ -n "$TABLE" ] || fail "sb-config --programs lists nothing"
}

@test "README's list of the NBD programs is the table" {
  local lists
  lists=$(tr '\n' ' ' <"$SB_ROOT/README.md" |
    grep -oE 'the NBD programs \([^)]*\)' | sed 's/^[^(]*(//; s/)$//')
  [ -n "$lists" ] || fail "README has no list of the NBD programs"
  local list
  while read -r list; do
    assert_equal "$(tr -d '\\' <<<"$list" | sed 's/, */\n/g' | sort)" "$TABLE"
  done <<<"$lists"
}

@test "sockboost(1)'s lists of the NBD programs are the table" {
  # Each run of '.BR NAME ,' lines, as one line of names.
  local runs
  runs=$(awk '/^\.BR [^ ]+ [,)]/ { run = run " " $2; n++; next }
              { if (n >= 3) print run; run = ""; n = 0 }' "$SB_ROOT/doc/sockboost.1" |
    sed 's/\\//g' | grep -w 'qemu-nbd')
  [ "$(wc -l <<<"$runs")" -ge 2 ] || fail "fewer than two lists: $runs"
  local run
  while read -r run; do
    assert_equal "$(tr ' ' '\n' <<<"$run" | sed '/^$/d' | sort)" "$TABLE"
  done <<<"$runs"
}
