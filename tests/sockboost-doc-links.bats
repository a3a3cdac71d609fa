#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The links of README.md and doc/*.md lead somewhere: each relative link
# names a file of the tree, and each #fragment a heading of that file
# (as GitHub makes a heading's anchor: lower case, punctuation dropped,
# blanks turned into hyphens).
load helpers

# The anchors of the headings of markdown FILE, one per line.
anchors () {
  sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' |
    sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# Each relative link target of markdown FILE: what is between '](' and ')'.
links () {
  grep -o '\](\([^)]*\))' "$1" | sed -e 's/^](//' -e 's/)$//' |
    grep -vE '^[a-z]+:'
}

@test "every relative link and anchor of README and doc/*.md resolves" {
  local file target path fragment count=0
  for file in "$SB_ROOT/README.md" "$SB_ROOT"/doc/*.md; do
    while IFS= read -r target; do
      count=$((count + 1))
      path=${target%%#*}
      fragment=
      [[ $target == *"#"* ]] && fragment=${target#*#}
      if [ -n "$path" ]; then
        path=$(dirname "$file")/$path
      else
        path=$file
      fi
      [ -e "$path" ] || fail "${file#$SB_ROOT/}: no such file: $target"
      [ -z "$fragment" ] || anchors "$path" | grep -qxF -- "$fragment" ||
        fail "${file#$SB_ROOT/}: no heading for #$fragment in ${path#$SB_ROOT/}"
    done < <(links "$file")
  done
  [ "$count" -ge 20 ] || fail "found only $count links"
}
