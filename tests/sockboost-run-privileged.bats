#!/usr/bin/env bats
# sockboost run warns, with the reason, exactly when the kernel will run
# the command in secure-execution mode (the loader then ignores
# LD_PRELOAD): each case checks the warning against whether the library
# really ended up in the program's /proc/self/maps, as root and as nobody.
bats_require_minimum_version 1.5.0
load helpers

NOBODY=65534

setup () {
  [ "$(id -u)" -eq 0 ] || skip "needs root to give a program another owner or capabilities"
  requires setpriv stat
  # Readable by nobody (bats' own directories are not).
  DIR=$(mktemp -d /tmp/sockboost-priv.XXXXXX)
  chmod 0755 "$DIR"
  cleanup_push "rm -rf '$DIR'"
  cp "$(type -P cat)" "$DIR/cat"
}

as_nobody () {
  setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
}

# Run PROGRAM (a copy of cat) under sockboost run (with any prefix
# command given first) reading its own maps; sets output and stderr.
# As nobody, it is the copy of sockboost and the library nobody can read.
run_maps () {
  local program=$1 sockboost=("$SOCKBOOST")
  shift
  if [ "${1:-}" = as_nobody ]; then
    sockboost_for_nobody
    sockboost=(env "${NOBODY_ENV[@]}" "$NOBODY_SOCKBOOST")
  fi
  run --separate-stderr "$@" "${sockboost[@]}" run -- "$program" /proc/self/maps
  assert_success
}

assert_boosted () {
  [[ $output == *libsockboost* ]] || fail "the library is not in the program's maps"
  [ -z "$stderr" ] || fail "unexpected warning: $stderr"
}

# The warning names the command, the reason, and the library is not there.
assert_not_boosted () {
  [[ $output != *libsockboost* ]] || fail "the library was loaded after all"
  [[ $stderr == "sockboost: warning: $1 will not be boosted: $2, so the kernel runs it in secure-execution mode, where the loader ignores LD_PRELOAD" ]] ||
    fail "wrong warning: $stderr"
}

@test "root runs a setuid-root program boosted, without a warning" {
  chmod 4755 "$DIR/cat"
  run_maps "$DIR/cat"
  assert_boosted
}

@test "nobody running a setuid-root program is warned" {
  chmod 4755 "$DIR/cat"
  run_maps "$DIR/cat" as_nobody
  assert_not_boosted "$DIR/cat" "it is setuid to user root (uid 0) and your real uid is $NOBODY"
}

@test "root running a program setuid to another user is warned" {
  chown $NOBODY "$DIR/cat"
  chmod 4755 "$DIR/cat"
  run_maps "$DIR/cat"
  assert_not_boosted "$DIR/cat" "it is setuid to user nobody (uid $NOBODY) and your real uid is 0"
}

@test "setgid to another group warns; without group execute it is no setgid" {
  chown 0:$NOBODY "$DIR/cat"
  chmod 2755 "$DIR/cat"
  run_maps "$DIR/cat"
  assert_not_boosted "$DIR/cat" \
    "it is setgid to group $(getent group $NOBODY | cut -d: -f1) (gid $NOBODY) and your real gid is 0"
  chmod 2745 "$DIR/cat"
  run_maps "$DIR/cat"
  assert_boosted
}

@test "file capabilities warn only a user whose real uid is not 0" {
  requires getcap setcap
  setcap cap_net_raw+ep "$DIR/cat" 2>/dev/null ||
    skip "cannot set file capabilities here (needs xattr support)"
  run_maps "$DIR/cat"
  assert_boosted
  run_maps "$DIR/cat" as_nobody
  assert_not_boosted "$DIR/cat" "it has file capabilities (cap_net_raw=ep) and your real uid is not 0"
}

@test "inheritable file capabilities warn only when they meet the caller's" {
  requires getcap setcap
  setcap cap_net_raw+i "$DIR/cat" 2>/dev/null ||
    skip "cannot set file capabilities here (needs xattr support)"
  run_maps "$DIR/cat" as_nobody
  assert_boosted
  run_maps "$DIR/cat" as_nobody --inh-caps +net_admin
  assert_boosted
  run_maps "$DIR/cat" as_nobody --inh-caps +net_raw
  assert_not_boosted "$DIR/cat" \
    "it has inheritable file capabilities (cap_net_raw=i) that meet yours, and your real uid is not 0"
}

@test "a setuid script is run by its interpreter: what counts is the interpreter's bits" {
  printf '#!/bin/cat\n' >"$DIR/script"
  chown $NOBODY "$DIR/script"
  chmod 4755 "$DIR/script"
  run_maps "$DIR/script"
  assert_boosted

  chown $NOBODY "$DIR/cat"
  chmod 4755 "$DIR/cat"
  printf '#!%s\n' "$DIR/cat" >"$DIR/script2"
  chmod 0755 "$DIR/script2"
  run_maps "$DIR/script2"
  assert_not_boosted "$DIR/script2" \
    "its interpreter $DIR/cat is setuid to user nobody (uid $NOBODY) and your real uid is 0"
}

@test "set-id bits on a nosuid mount are ignored, and so is the warning" {
  requires unshare findmnt
  local problem
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  # In a chroot, in a private bind of the root (tests/helpers-namespaces.bash).
  run --separate-stderr private_mount_ns bash -c '
    mount -t tmpfs -o nosuid,mode=0755 none "$1" &&
    cp "$(type -P cat)" "$1/cat" && chown 65534 "$1/cat" && chmod 4755 "$1/cat" &&
    "$SOCKBOOST" run -- "$1/cat" /proc/self/maps' _ "$DIR"
  assert_success
  assert_boosted
}

@test "an ordinary program gets no warning" {
  run_maps "$DIR/cat" as_nobody
  assert_boosted
}
