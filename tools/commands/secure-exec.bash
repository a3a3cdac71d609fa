# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# sockboost run: tell when the kernel will make the loader ignore LD_PRELOAD.
# Sourced by tools/sockboost, which defines the helpers used here.

# ---- secure execution: when the loader ignores LD_PRELOAD ----------------
#
# The kernel runs a program in secure-execution mode (AT_SECURE, in which
# ld.so ignores every LD_PRELOAD entry that has a '/') when the exec leaves
# the effective uid or gid different from the real ones, or gives file
# capabilities to a user whose real uid is not 0 (fs/exec.c bprm_fill_uid,
# security/commoncap.c cap_bprm_creds_from_file).  Bash itself resets its
# effective ids to the real ones, so ours are always equal here.

# The file the kernel will execute for PATH: a "#!" script runs its
# interpreter, whose set-id bits and capabilities are the ones that count.
exec_target () {
  local path=$1 line interp depth=0
  while [ $depth -lt 4 ] && [ "$(head -c 2 -- "$path" 2>/dev/null)" = '#!' ]; do
    IFS= read -r line <"$path" || true
    read -r interp _ <<<"${line#'#!'}"
    [ -n "$interp" ] || break
    path=$(readlink -f -- "$interp") || break
    depth=$((depth + 1))
  done
  echo "$path"
}

# True when set-id bits and file capabilities of PATH take effect: not on
# a nosuid mount, not under no_new_privs (set-id only, as the kernel).
suid_honoured () {
  local options
  if command -v findmnt >/dev/null; then
    options=$(findmnt -n -o OPTIONS -T "$1" 2>/dev/null || true)
    [[ ,$options, == *,nosuid,* ]] && return 1
  fi
  return 0
}

no_new_privs () {
  grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status 2>/dev/null
}

# Why the exec of PATH makes the effective uid or gid differ from the real
# one, or nothing.  A set-group-id bit without group execute is not one.
setid_reason () {
  local mode owner user group gname rgid
  read -r mode owner user group gname < <(stat -L -c '%a %u %U %g %G' -- "$1")
  mode=$((8#$mode)) rgid=$(id -rg)
  if ((mode & 8#4000)) && [ "$owner" != "$UID" ]; then
    echo "is setuid to user $user (uid $owner) and your real uid is $UID"
  elif (((mode & 8#2010) == 8#2010)) && [ "$group" != "$rgid" ]; then
    echo "is setgid to group $gname (gid $group) and your real gid is $rgid"
  fi
}

# The capability names a getcap text grants with FLAG (e, i or p).
caps_with_flag () {
  local clause names flags
  for clause in $1; do
    [[ $clause =~ ^([a-z_0-9,]*)[=+]([eip]*)$ ]] || continue
    names=${BASH_REMATCH[1]} flags=${BASH_REMATCH[2]}
    [[ $flags == *"$2"* ]] && echo "${names:-all}"
  done
}

# File capabilities make the exec secure for a non-root real uid when they
# are effective, or when the permitted set grows: from fP, or from fI
# meeting our inheritable set.
fcaps_reason () {
  local path=$1 caps inh wanted
  [ "$UID" -ne 0 ] && command -v getcap >/dev/null || return 0
  caps=$(getcap -- "$path" 2>/dev/null || true)
  caps=${caps#"$path"} caps=${caps# }
  [ -n "$caps" ] || return 0
  if [ -n "$(caps_with_flag "$caps" e)$(caps_with_flag "$caps" p)" ]; then
    echo "has file capabilities ($caps) and your real uid is not 0"
    return
  fi
  inh=$(awk '/^CapInh:/ { print $2 }' /proc/self/status)
  [ $((16#${inh:-0})) -ne 0 ] || return 0
  wanted=$(caps_with_flag "$caps" i | tr ',' '\n')
  if [[ $'\n'$wanted$'\n' == *$'\n'all$'\n'* ]] || ! command -v capsh >/dev/null ||
     capsh --decode="$inh" | tr '=,' '\n\n' | grep -qxF -f <(echo "$wanted"); then
    echo "has inheritable file capabilities ($caps) that meet yours, and your real uid is not 0"
  fi
}

# Warn when the loader will ignore LD_PRELOAD for COMMAND (at PATH).
warn_if_secure_exec () {
  local path target reason="" subject=it
  path=$(readlink -f -- "$2")
  target=$(exec_target "$path")
  [ "$target" = "$path" ] || subject="its interpreter $target"
  suid_honoured "$target" || return 0
  no_new_privs || reason=$(setid_reason "$target")
  [ -n "$reason" ] || reason=$(fcaps_reason "$target")
  [ -n "$reason" ] || return 0
  warn "$1 will not be boosted: $subject $reason, so the kernel runs it in secure-execution mode, where the loader ignores LD_PRELOAD"
}
