#!/usr/bin/env bats
# --help and the man page agree, both ways, for every command: each option
# an option line of --help names has an entry (a .TP tag) in the man page
# section that documents that command's options, and each entry there is
# in --help.
bats_require_minimum_version 1.5.0
load helpers

# The options named at the start of --help's option lines (before the two
# blanks that begin the description), one per line, sorted.
help_options () {
  awk '/^ +-/ { sub(/^ +/, ""); split($0, cols, /  /)
                n = split(cols[1], t, /[ ,=[]+/)
                for (i = 1; i <= n; i++) if (t[i] ~ /^--?[A-Za-z0-9][-A-Za-z0-9]*$/) print t[i] }' |
    sort -u
}

# The options in the .TP tags of section SECTION of man page PAGE.
man_options () {
  awk -v want="$2" '
    /^\.SH / { section = $0; sub(/^\.SH +/, "", section); gsub(/"/, "", section); next }
    section != want { tag = 0; next }
    /^\.TP/ { tag = 1; next }
    tag { tag = 0; line = $0
          gsub(/\\-/, "-", line); gsub(/\\f[BIRP]/, "", line); gsub(/"/, " ", line)
          sub(/^\.[A-Z]+ /, "", line)
          n = split(line, t, /[ ,=]+/)
          for (i = 1; i <= n; i++) if (t[i] ~ /^--?[A-Za-z0-9][-A-Za-z0-9]*$/) print t[i] }' "$1" |
    sort -u
}

# Compare the --help of COMMAND... with section SECTION of PAGE.
assert_help_matches_man () {
  local page=$SB_ROOT/doc/$1 section=$2
  shift 2
  assert_same_items "'$* --help'" "$("$@" --help | help_options)" \
    "${page##*/} ($section)" "$(man_options "$page" "$section")"
}

@test "sockboost" {
  assert_help_matches_man sockboost.1 OPTIONS "$SOCKBOOST"
}

@test "sockboost run" {
  assert_help_matches_man sockboost.1 "RUN OPTIONS" "$SOCKBOOST" run
}

@test "sockboost doctor" {
  assert_help_matches_man sockboost.1 "DOCTOR OPTIONS" "$SOCKBOOST" doctor
}

@test "sockboost status" {
  assert_help_matches_man sockboost.1 "STATUS OPTIONS" "$SOCKBOOST" status
}

@test "sockboost bench" {
  requires python3
  assert_help_matches_man sockboost.1 "BENCH OPTIONS" "$SOCKBOOST" bench
}

@test "sockboost attach" {
  SOCKBOOST_ATTACH_HELPER=$SB_BUILD/tools/sb-attach \
    assert_help_matches_man sockboost.1 "ATTACH OPTIONS" "$SOCKBOOST" attach
}

@test "sockboost libvirt" {
  assert_help_matches_man sockboost.1 "LIBVIRT OPTIONS" "$SOCKBOOST" libvirt
}

@test "sockboost host" {
  [ -x "$SB_BUILD/tools/sb-host" ] ||
    sb_skip "sockboost host was not built (needs clang, libbpf-dev and bpftool)"
  assert_help_matches_man sockboost.1 "HOST OPTIONS" "$SOCKBOOST" host
}

@test "sockboost metrics" {
  assert_help_matches_man sockboost.1 "METRICS OPTIONS" "$SOCKBOOST" metrics
}

@test "sbnbd-server" {
  assert_help_matches_man sbnbd-server.1 OPTIONS "$SBNBD_SERVER"
}

@test "sbnbd-client" {
  assert_help_matches_man sbnbd-client.1 OPTIONS "$SBNBD_CLIENT"
}
