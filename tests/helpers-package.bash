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

# Build the package once per bats run, shared by the tests/package-*.bats
# files: print the directory (BATS_RUN_TMPDIR/sockboost-deb); fail as the
# build did.
package_build_once () {
  local dir=$BATS_RUN_TMPDIR/sockboost-deb status=0
  if [ ! -e "$dir/status" ]; then
    package_build "$dir" || status=$?
    echo "$status" > "$dir/status"
  fi
  echo "$dir"
  return "$(cat "$dir/status")"
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

# ---- a fresh Debian 12 root to install the package in --------------------
# A debootstrap --variant=minbase bookworm root and nothing more, built
# once and cached as make check-compat caches its chroots
# (tests/compat/cache.bash: SB_COMPAT_CACHE, default
# /var/cache/sockboost-compat, refreshed weekly).  Each run uses it through
# an overlay, so it starts from the same clean root and leaves it as it
# was.  The packages apt downloads there are kept in PACKAGE_ARCHIVES:
# only the first run needs the mirror for them.
PACKAGE_SUITE=bookworm
PACKAGE_ROOT_NAME=bookworm-minbase
SB_COMPAT_CACHE=${SB_COMPAT_CACHE:-/var/cache/sockboost-compat}
PACKAGE_ROOT=$SB_COMPAT_CACHE/$PACKAGE_ROOT_NAME
PACKAGE_ARCHIVES=$SB_COMPAT_CACHE/$PACKAGE_ROOT_NAME.archives
PACKAGE_LOCK=$SB_COMPAT_CACHE/$PACKAGE_ROOT_NAME.lock

# Build or refresh the cached root when needed (excluding every other
# user of it meanwhile); its messages go to stderr.
package_root_ensure () {
  mkdir -p "$SB_COMPAT_CACHE" "$PACKAGE_ARCHIVES/partial"
  flock -w 1800 -x "$PACKAGE_LOCK" bash -c '
    CHROOT_PACKAGES=/dev/null && . "$SB_ROOT/tests/compat/cache.bash" &&
    ensure_chroot "$1" "$2"' \
    _ "$PACKAGE_SUITE" "$PACKAGE_ROOT_NAME" < /dev/null
}

# Run bash -c SCRIPT ARG... as root inside the root's overlay in DIR
# (DIR/upper keeps what the runs change, so that successive calls see
# each other's work), in private mount and pid namespaces: when SCRIPT
# ends, every process it started ends, and every mount goes.  DIR/tmp
# is the root's /tmp.  One run at a time uses the shared download
# directory (apt in another run's namespace would hold its lock).
package_root_run () {
  local dir=$1; shift
  mkdir -p "$dir/upper" "$dir/work" "$dir/root" "$dir/tmp"
  chmod 1777 "$dir/tmp"
  flock -w 1800 -s "$PACKAGE_LOCK" flock -w 1800 "$PACKAGE_ARCHIVES.lock" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb SB_ROOT="$SB_ROOT" \
    unshare --mount --propagation private -- bash -c '
      set -e
      dir=$1 lower=$2 archives=$3; shift 3
      mount -t overlay overlay \
        -o "lowerdir=$lower,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
      mount --bind "$archives" "$dir/root/var/cache/apt/archives"
      cp -L /etc/resolv.conf "$dir/root/etc/resolv.conf"
      exec unshare --mount --pid --fork --propagation private -- \
        "$SB_ROOT/tests/compat/enter" --tmp "$dir/tmp" "$dir/root" -- \
        /bin/bash -c "$@"' _ "$dir" "$PACKAGE_ROOT" "$PACKAGE_ARCHIVES" "$@"
}

# An awk program: given dpkg-query -W -f "$INSTALLED_FORMAT" on stdin, it
# prints sockboost and the installed packages it pulls in, one per line:
# its Depends and Pre-Depends, and theirs, recursively (each installed
# alternative, a virtual package's installed providers); with -v
# recommends=1 also the Recommends of those dependencies (apt installs
# them by default), never sockboost's own.
INSTALLED_FORMAT='${Package}\t${db:Status-Status}\t${Provides}\t${Pre-Depends}, ${Depends}\t${Recommends}\n'
DEPENDS_CLOSURE_AWK='
BEGIN { FS = "\t" }
$2 == "installed" {
  installed[$1] = 1
  deps[$1] = ($1 == "sockboost" || !recommends) ? $4 : $4 ", " $5
  n = split($3, provided, /, */)
  for (i = 1; i <= n; i++) {
    sub(/ .*/, "", provided[i])
    providers[provided[i]] = providers[provided[i]] " " $1
  }
}
END {
  queue[1] = "sockboost"; seen["sockboost"] = 1; head = 1; tail = 1
  while (head <= tail) {
    p = queue[head++]
    print p
    n = split(deps[p], dep, /[,|]/)
    for (i = 1; i <= n; i++) {
      name = dep[i]
      gsub(/\([^)]*\)|:[a-z0-9]+|[ \t]/, "", name)
      m = split(((name in installed) ? name : "") providers[name], found, " ")
      for (j = 1; j <= m; j++)
        if (!(found[j] in seen)) { seen[found[j]] = 1; queue[++tail] = found[j] }
    }
  }
}'
