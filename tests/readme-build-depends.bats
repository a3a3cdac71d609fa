#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# README's Install section tells a new user what to install before
# `make deb`: every package of debian/control's Build-Depends must be on
# that apt-get line, or dpkg-buildpackage stops at its dependency check
# (host mode's clang, libbpf-dev, bpftool and pkg-config were once
# missing from it).
load helpers

# The package names of debian/control's Build-Depends, one per line,
# without versions or architecture qualifiers.
build_depends () {
  awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") }
       on && /^[^ ]/ && !/^Build-Depends:/ && seen { on = 0 }
       on { seen = 1; print }' "$SB_ROOT/debian/control" |
    tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/:any//' -e 's/[[:space:]]//g' |
    grep -v '^$'
}

# The packages README's apt-get line right before `make deb` names.
readme_line () {
  grep -B1 '^    make deb' "$SB_ROOT/README.md" |
    sed -n 's/^    apt-get install //p'
}

@test "README's apt-get line before 'make deb' names every Build-Depends" {
  local line wanted pkg missing=()
  line=" $(readme_line) "
  [ "$line" != "  " ] || fail "no apt-get line right before 'make deb' in README.md"
  wanted=$(build_depends)
  [ "$(wc -l <<<"$wanted")" -ge 5 ] || fail "read too few Build-Depends: $wanted"
  for pkg in $wanted; do
    # debhelper-compat is provided by debhelper; python3 comes with dh-python.
    case $pkg in
      debhelper-compat) pkg=debhelper ;;
      python3) pkg=dh-python ;;
    esac
    [[ $line == *" $pkg "* ]] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] || fail "README's line lacks: ${missing[*]} (line:$line)"
}
