#!/usr/bin/env bats
# Only the hooks are exported from libsockboost.so: the names in
# SB_REAL_SYMBOLS (preload/real-symbols.h), the functions the library's
# objects define as visible (SB_EXPORT), the names in the export map the
# build made from the list, and what nm -D shows are the same list.

load helpers

# The names of SB_REAL_SYMBOLS, read from the header as written: one
# "X (name, ..." entry each.
listed_symbols () {
  sed -n 's/^ *X (\([A-Za-z0-9_]*\),.*/\1/p' "$SB_ROOT/preload/real-symbols.h" | sort
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
  requires nm readelf
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
