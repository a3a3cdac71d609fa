# SPDX-License-Identifier: MIT
# Comparing two lists that must agree (names, options), for the tests
# that hold one source to another.

# Fail unless LIST_A and LIST_B (one item a line, sorted) hold the same
# items, naming those only one of them has:
#   assert_same_items "what A is" "$LIST_A" "what B is" "$LIST_B"
assert_same_items () {
  local only_a only_b
  [ -n "$2" ] || fail "$1: nothing found"
  [ -n "$4" ] || fail "$3: nothing found"
  only_a=$(comm -23 <(echo "$2") <(echo "$4") | paste -sd ' ')
  only_b=$(comm -13 <(echo "$2") <(echo "$4") | paste -sd ' ')
  [ -z "$only_a$only_b" ] ||
    fail "$1 and $3 differ: only in $1: ${only_a:-none}; only in $3: ${only_b:-none}"
}
