# SPDX-License-Identifier: MIT
# The Debian package for the tests/package-*.bats files (sourced by
# helpers.bash).

# Build the package with 'make deb' into DIR (its log: DIR/build.log),
# in a private network namespace: the build must not need the network.
package_build () {
  local dir=$1
  mkdir -p "$dir"
  unshare --net -- make -s -C "$SB_ROOT" deb DEB_DIR="$dir" > "$dir/build.log" 2>&1
}

# The .deb that package_build left in DIR.
package_deb () {
  local debs=("$1"/sockboost_*.deb)
  [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || return 1
  echo "${debs[0]}"
}

# The version the GNUmakefile carries.
makefile_version () {
  sed -n 's/^VERSION := *//p' "$SB_ROOT/GNUmakefile"
}
