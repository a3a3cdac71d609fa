#!/usr/bin/env bats
# Only the hooks are exported from libsockboost.so: the names in
# SB_REAL_SYMBOLS (preload/real-symbols.h), the functions the library's
# objects define as visible (SB_EXPORT), the names in the export map the
# build made from the list, and what nm -D shows are the same list.
# Built against a glibc older than 2.34 (Debian 11's 2.31), the list has
# no close_range or closefrom, and the library asks for no symbol version
# newer than that glibc's.

load helpers

# The names of SB_REAL_SYMBOLS for this C library, as the compiler reads
# the header: one "X (name, ..." entry each.
listed_symbols () {
  printf '%s\n' '#include "real-symbols.h"' '#define NAME(name, ret, args) name' \
    'SB_REAL_SYMBOLS (NAME)' | cc -E -P -x c -I "$SB_ROOT/preload" - |
    tr -s ' \t' '\n\n' | sed '/^$/d' | sort
}

# This C library's version, e.g. 2.31: the one the library was built
# against (tests run where the build was made, or on a newer glibc).
glibc_version () {
  getconf GNU_LIBC_VERSION | awk '{ print $2 }'
}

# The names the version script makes global.
mapped_symbols () {
  awk '/global:/ { on = 1; next } /local:/ { on = 0 } on' \
    "$SB_BUILD/preload/libsockboost.syms" | tr -s ' ;\n' '\n' | sed '/^$/d' | sort
}

# The functions marked SB_EXPORT: defined, global and of default
# visibility in the library's objects (everything else is hidden).
visible_functions () {
  local o
  for o in "$SB_BUILD"/preload/*.o; do
    readelf -sW "$o" |
      awk '$4 == "FUNC" && $5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }'
  done | sort
}

exported_symbols () {
  nm -D --defined-only "$LIBSOCKBOOST" | awk '{ print $3 }' | sort
}

@test "SB_REAL_SYMBOLS, the hooks, the export map and nm -D name the same" {
  requires nm readelf cc
  local listed visible mapped exported
  listed=$(listed_symbols)
  visible=$(visible_functions)
  mapped=$(mapped_symbols)
  exported=$(exported_symbols)
  grep -qx socket <<<"$listed" || fail "SB_REAL_SYMBOLS not read: $listed"
  assert_same_items SB_REAL_SYMBOLS "$listed" "the SB_EXPORT functions" "$visible"
  assert_same_items SB_REAL_SYMBOLS "$listed" "the export map" "$mapped"
  assert_same_items SB_REAL_SYMBOLS "$listed" "nm -D" "$exported"
}

@test "close_range and closefrom are hooked exactly where the C library has them (glibc 2.34)" {
  requires nm getconf
  local exported glibc
  glibc=$(glibc_version)
  exported=$(exported_symbols)
  echo "# glibc $glibc: $(grep -cx 'close_range\|closefrom' <<<"$exported") of close_range, closefrom exported" >&3
  if version_at_least "$glibc" 2.34; then
    grep -qx close_range <<<"$exported" || fail "glibc $glibc has close_range, the library does not hook it"
    grep -qx closefrom <<<"$exported" || fail "glibc $glibc has closefrom, the library does not hook it"
  else
    run grep -x 'close_range\|closefrom' <<<"$exported"
    assert_output ""
  fi
}

@test "the library asks the C library for no symbol version newer than it has" {
  requires objdump getconf
  local glibc newest
  glibc=$(glibc_version)
  newest=$(objdump -T "$LIBSOCKBOOST" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
  echo "# glibc $glibc; the library asks for GLIBC_$newest at most" >&3
  [ -n "$newest" ] || fail "no GLIBC_ version read from objdump -T $LIBSOCKBOOST"
  version_at_least "$glibc" "$newest" || fail "the library asks for GLIBC_$newest; this C library is $glibc"
}
