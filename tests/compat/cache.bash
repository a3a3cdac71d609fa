# SPDX-License-Identifier: MIT
# The chroot cache of make check-compat (sourced by tests/compat/run).
#
# $SB_COMPAT_CACHE/SUITE is a debootstrap --variant=minbase chroot of
# SUITE with tests/compat/packages installed, as amended for SUITE by
# tests/compat/packages.SUITE when there is one; its .sockboost-compat file
# says what it was built from.  ensure_chroot SUITE leaves a usable
# chroot there or fails saying why:
#   missing or broken (no stamp, a package not installed, dpkg
#     half-configured, a program that does not run)   -> built afresh
#   built from another package list or mirror         -> refreshed
#   last refreshed more than SB_COMPAT_MAX_AGE days ago -> refreshed;
#     if that fails (no network) the old chroot is used, with a warning
#   a refresh that breaks it                           -> built afresh
# A chroot is built in SUITE.new and renamed into place only once
# complete, so an interrupted build never leaves a half chroot in use.
# Every mount made while building or refreshing is made in a private
# mount namespace and so vanishes with it.

SB_COMPAT_CACHE=${SB_COMPAT_CACHE:-/var/cache/sockboost-compat}
SB_COMPAT_MAX_AGE=${SB_COMPAT_MAX_AGE:-7}
COMPAT_DIR=$SB_ROOT/tests/compat
STAMP_NAME=.sockboost-compat
# The package list the chroots get, and beside it CHROOT_PACKAGES.SUITE
# for one suite: a name adds a package, -NAME takes one of the list out.
# The package test's plain Debian root (tests/helpers-package.bash) sets
# it to /dev/null.
CHROOT_PACKAGES=${CHROOT_PACKAGES:-$COMPAT_DIR/packages}

compat_say () { echo "check-compat: $*" >&2; }

# The packages of CHROOT_PACKAGES for SUITE, one per line, sorted.
compat_packages () {
  local amendments=$CHROOT_PACKAGES.$1
  [ -f "$amendments" ] || amendments=/dev/null
  sed -e 's/#.*//' "$CHROOT_PACKAGES" "$amendments" | tr -s ' \t' '\n\n' |
    awk '/^-/ { out[substr($0, 2)] = 1; next } NF { keep[$0] = 1 }
         END { for (p in keep) if (!(p in out)) print p }' | sort
}

# The Debian mirror: SB_COMPAT_MIRROR, else the first non-security URI
# of this host's apt sources (deb822 or one-line), else deb.debian.org.
compat_mirror () {
  local uri
  if [ -n "${SB_COMPAT_MIRROR:-}" ]; then
    echo "$SB_COMPAT_MIRROR"
    return
  fi
  uri=$(awk '
    /^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }
    /^deb / && $2 !~ /security/ { print ($2 ~ /^\[/) ? $3 : $2; exit }' \
    /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null)
  echo "${uri:-http://deb.debian.org/debian}"
}

# What a chroot of SUITE is built from: its package list and the mirror.
compat_recipe () {
  { compat_packages "$1"; compat_mirror; } | sha256sum | cut -d' ' -f1
}

# Print field KEY of the stamp of chroot DIR (the first value).
stamp_get () {
  awk -v k="$2" '$1 == k { print $2 }' "$1/$STAMP_NAME" 2>/dev/null
}

# Print the values of field KEY of the stamp of chroot DIR, one a line.
stamp_list () {
  awk -v k="$2" '$1 == k { for (i = 2; i <= NF; i++) print $i }' "$1/$STAMP_NAME" 2>/dev/null
}

# The stamp: what the chroot of SUITE was set up from, and when.
write_stamp () {
  local dir=$1 suite=$2 built=$3
  printf 'recipe %s\nmirror %s\npackages %s\nbuilt %s\nrefreshed %s\n' \
    "$(compat_recipe "$suite")" "$(compat_mirror)" "$(compat_packages "$suite" | tr '\n' ' ')" \
    "$built" "$(date +%s)" > "$dir/$STAMP_NAME"
}

# Run CMD... as root inside chroot DIR with /proc, /sys and /dev mounted
# in a private mount and pid namespace, and the host's name servers.
in_chroot () {
  local dir=$1; shift
  cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  unshare --mount --pid --fork --propagation private -- \
    "$COMPAT_DIR/enter" "$dir" -- "$@"
}

# Why chroot DIR cannot be used (one line), or nothing when it can: the
# packages it was last set up with must all be installed and configured.
chroot_problem () {
  local dir=$1 missing
  [ -d "$dir" ] || { echo "not built yet"; return; }
  [ -s "$dir/$STAMP_NAME" ] || { echo "no $STAMP_NAME (an interrupted build?)"; return; }
  chroot "$dir" /bin/true 2>/dev/null || { echo "its /bin/true does not run"; return; }
  missing=$(chroot "$dir" dpkg-query -W -f='${db:Status-Status} ${Package}\n' \
      $(stamp_list "$dir" packages) 2>/dev/null | awk '$1 == "installed" { print $2 }' |
    sed 's/:.*//' | sort -u | comm -13 - <(stamp_list "$dir" packages | sort -u) | tr '\n' ' ')
  [ -z "$missing" ] || { echo "packages missing: $missing"; return; }
  [ -z "$(chroot "$dir" dpkg --audit 2>&1)" ] || { echo "dpkg --audit reports broken packages"; return; }
  if stamp_list "$dir" packages | grep -qx qemu-utils; then
    chroot "$dir" qemu-nbd --version >/dev/null 2>&1 || { echo "its qemu-nbd does not run"; return; }
  fi
}

# Remove DIR, refusing when anything is mounted below it (a mount left
# by someone else: rm would reach into what is mounted).
remove_tree () {
  local dir=$1
  [ -e "$dir" ] || return 0
  if awk -v d="$dir" 'index($5, d) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    compat_say "something is mounted under $dir; not removing it"
    return 1
  fi
  rm -rf --one-file-system "$dir"
}

# Apt settings every chroot gets: its mirror, no recommends, no services.
# The mirror may be a frozen snapshot whose sid Release is past its
# Valid-Until (debootstrap does not look at it either); signatures are
# still checked.
configure_apt () {
  local dir=$1 suite=$2
  echo "deb $(compat_mirror) $suite main" > "$dir/etc/apt/sources.list"
  printf '%s\n' 'APT::Install-Recommends "false";' 'APT::Install-Suggests "false";' \
    'Acquire::Check-Valid-Until "false";' > "$dir/etc/apt/apt.conf.d/90sockboost-compat"
  printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
  chmod 0755 "$dir/usr/sbin/policy-rc.d"
}

# Bring chroot DIR's packages up to date and install the list.  A
# failed download fails (apt-get update alone only warns, and the stamp
# would then claim a refresh that did not happen).
apt_refresh () {
  local dir=$1 suite=$2 log=$3
  configure_apt "$dir" "$suite"
  in_chroot "$dir" /bin/sh -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q --error-on=any &&
    apt-get -y -q -o Dpkg::Options::=--force-confnew full-upgrade &&
    apt-get -y -q install "$@" &&
    apt-get clean' sh $(compat_packages "$suite") >> "$log" 2>&1
}

# Build SUITE afresh into DIR.new, then put it in DIR's place.
build_chroot () {
  local suite=$1 dir=$2 log=$2.log new=$2.new t0=$SECONDS
  remove_tree "$new" || return 1
  compat_say "$suite: building the chroot in $dir from $(compat_mirror) (log: $log)"
  : > "$log"
  if ! unshare --mount --propagation private -- debootstrap --variant=minbase \
       "$suite" "$new" "$(compat_mirror)" >> "$log" 2>&1; then
    compat_say "$suite: debootstrap failed (no network, or the mirror lacks $suite?); the end of $log:"
    tail -n 5 "$log" >&2
    return 1
  fi
  if ! apt_refresh "$new" "$suite" "$log"; then
    compat_say "$suite: installing the packages failed; the end of $log:"
    tail -n 5 "$log" >&2
    return 1
  fi
  write_stamp "$new" "$suite" "$(date +%s)"
  remove_tree "$dir" && mv "$new" "$dir" || return 1
  compat_say "$suite: built in $((SECONDS - t0)) s ($(du -sh "$dir" | cut -f1))"
}

# Refresh chroot DIR in place (WHY says why); true if every package is
# installed and up to date afterwards.
refresh_chroot () {
  local suite=$1 dir=$2 why=$3 log=$2.log
  compat_say "$suite: refreshing the chroot ($why; log: $log)"
  : > "$log"
  if ! apt_refresh "$dir" "$suite" "$log"; then
    compat_say "$suite: the refresh failed (no network?); the end of $log:"
    tail -n 3 "$log" >&2
    return 1
  fi
  write_stamp "$dir" "$suite" "$(stamp_get "$dir" built)"
  [ -z "$(chroot_problem "$dir")" ]
}

# Leave a usable chroot of SUITE in $SB_COMPAT_CACHE/NAME (default SUITE;
# see the top).
ensure_chroot () {
  local suite=$1 dir=$SB_COMPAT_CACHE/${2:-$1} problem age
  problem=$(chroot_problem "$dir")
  if [ -n "${SB_COMPAT_REBUILD:-}" ]; then
    build_chroot "$suite" "$dir"
  elif [ -n "$problem" ]; then
    [ -d "$dir" ] && compat_say "$suite: the cached chroot is unusable: $problem"
    build_chroot "$suite" "$dir"
  elif [ "$(stamp_get "$dir" recipe)" != "$(compat_recipe "$suite")" ]; then
    refresh_chroot "$suite" "$dir" "the package list or mirror changed" ||
      build_chroot "$suite" "$dir"
  else
    age=$((($(date +%s) - $(stamp_get "$dir" refreshed)) / 86400))
    [ "$age" -ge "$SB_COMPAT_MAX_AGE" ] || return 0
    refresh_chroot "$suite" "$dir" "last refreshed $age days ago" && return 0
    problem=$(chroot_problem "$dir")
    if [ -n "$problem" ]; then
      compat_say "$suite: the failed refresh left it unusable: $problem"
      build_chroot "$suite" "$dir"
    else
      compat_say "$suite: using the chroot as it was"
    fi
  fi
}
