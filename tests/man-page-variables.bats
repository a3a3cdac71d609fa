#!/usr/bin/env bats
# The man pages document exactly the SOCKBOOST_* variables the library
# reads, as sb-config --variables lists them from the library's own table
# (rules/settings.c): a variable added there and not documented, or
# documented and gone, fails here; so does a stale example of the
# settings line that names them all.
load helpers

# The variables the library reads, one a line, sorted.
library_variables () {
  "$SB_BUILD/tools/sb-config" --variables | awk -F '\t' '$1 == "variable" { print $2 }' | sort
}

# The SOCKBOOST_* tags of the ENVIRONMENT section of man page PAGE, one a
# line, sorted; with OWN=skip-own, not those whose entry begins "Used by"
# (the variables of the sockboost command itself).
man_variables () {
  awk -v own="$2" '
    /^\.SH / { env = $0 ~ /^\.SH +"?ENVIRONMENT"?$/; tag = 0; name = ""; next }
    !env { next }
    /^\.TP/ { tag = 1; next }
    tag { tag = 0; if ($1 == ".B" && $2 ~ /^SOCKBOOST_/) name = $2; next }
    name != "" { if (own != "skip-own" || $0 !~ /^Used by/) print name; name = "" }
  ' "$SB_ROOT/doc/$1" | sort
}

# Fail unless the variables of PAGE (OWN as for man_variables) are the
# library's, naming those only one side has.
assert_page_matches () {
  local library
  library=$(library_variables)
  grep -qx SOCKBOOST_SNDBUF <<<"$library" || fail "sb-config --variables listed: $library"
  assert_same_items "the library's variables" "$library" \
    "the variables in $1 (ENVIRONMENT)" "$(man_variables "$1" "${2:-}")"
}

@test "libsockboost(7) documents every variable the library reads, and no other" {
  assert_page_matches libsockboost.7
}

@test "sockboost(1) documents the library's variables beside its own" {
  assert_page_matches sockboost.1 skip-own
}

@test "libsockboost(7)'s example settings line is the one the library prints" {
  local example printed
  example=$(sed -n 's/^\.B "sockboost\[qemu-nbd 1234\]: \(settings: .*\)"$/\1/p' \
    "$SB_ROOT/doc/libsockboost.7")
  [ -n "$example" ] || fail "no example settings line in libsockboost.7"
  printed=$(env -i SOCKBOOST_DEBUG=2 "$SB_BUILD/tools/sb-config" --settings \
    --wmem-max 212992 |
    awk -F '\t' '$1 == "settings" { print $2 }')
  assert_equal "$example" "$printed"
}
