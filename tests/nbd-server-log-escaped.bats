#!/usr/bin/env bats
# Values from the network or the command line that go into sbnbd-server's
# messages are escaped (sb_escape): an export name or an option payload
# holding line breaks, escape sequences, quotes or NUL bytes gives exactly
# one log line, which says what the bytes were, and no forged line.
# bats file_tags=sanitize

load helpers

# An NBD constant by its C name, from nbd/nbd-protocol.h.
nbd_const () {
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import nbdproto
print(nbdproto.C[sys.argv[2]])' "$SB_ROOT/tests" "$1"
}

# Hex of an option payload built by the python expression $1 (struct and
# the bytes literals it needs).
payload_hex () {
  python3 -c "import struct; print(($1).hex())"
}

# Every line of the log is one of the server's; then print it for asserts.
check_log_lines () {
  wait_for_line "$NBD_LOG" "connection $1: closed"
  run grep -vc '^sbnbd-server: ' "$NBD_LOG"
  assert_output 0
  run cat "$NBD_LOG"
}

@test "export names from NBD_OPT_GO and NBD_OPT_EXPORT_NAME: one escaped line each" {
  requires python3
  start_sbnbd_unix -v -e disk memory:1M
  run rawnbd greeting go=$'evil\nsbnbd-server: connection 9: forged\e[2J\x7f\'' \
    export-name=$'x\ry\tz' eof
  assert_line -n 1 "go ERR_UNKNOWN"
  assert_line -n 2 eof
  check_log_lines 1
  refute_line --regexp '^sbnbd-server: connection 9'
  assert_line 'sbnbd-server: connection 1: unknown export '\''evil\nsbnbd-server: connection 9: forged\x1b[2J\x7f\'\'''\'
  assert_line 'sbnbd-server: connection 1: unknown export '\''x\ry\tz'\'
  assert_equal "$(grep -c 'unknown export' "$NBD_LOG")" 2
}

# Send option NAME with the payload the python expression PAYLOAD
# builds, expect the reply REPLY, then exactly the log line LINE.
raw_option_logs () {
  local name=$1 payload=$2 reply=$3 line=$4 opt
  requires python3
  start_sbnbd_unix -v -e disk memory:1M
  opt=$(nbd_const "$name")
  run rawnbd greeting "opt-hex=$opt,$(payload_hex "$payload")"
  assert_line -n 1 "opt $opt $reply"
  check_log_lines 1
  assert_line "$line"
}

@test "an export name with NUL and high bytes, sent raw: escaped whole" {
  raw_option_logs NBD_OPT_GO \
    'struct.pack(">I", 6) + b"a\x00b\n\xff\"" + struct.pack(">H", 0)' \
    ERR_UNKNOWN 'sbnbd-server: connection 1: unknown export '\''a\x00b\n\xff\"'\'
}

@test "a meta context query with control characters: one escaped line" {
  raw_option_logs NBD_OPT_LIST_META_CONTEXT \
    'struct.pack(">I", 4) + b"disk" + struct.pack(">II", 1, 13) + b"qemu:x\n\x00\x1b[2J\\"' \
    ACK 'sbnbd-server: connection 1: meta context '\''qemu:x\n\x00\x1b[2J\\'\'' not offered'
}

@test "file names and arguments from the command line are escaped" {
  run "$SBNBD_SERVER" -U "$BATS_TEST_TMPDIR/s" $'/nonexistent/a\nb'
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output 'sbnbd-server: /nonexistent/a\nb: No such file or directory'
  run "$SBNBD_SERVER" -U $'/nonexistent/\e[2J/s' null:1M
  assert_failure 1
  assert_output 'sbnbd-server: /nonexistent/\x1b[2J/s: No such file or directory'
  run "$SBNBD_SERVER" -p $'1\n2' null:1M
  assert_failure 2
  assert_line -n 0 'sbnbd-server: -p 1\n2: not a number'
  assert_equal "${#lines[@]}" 2
  run "$SBNBD_SERVER" -U s $'memory:1\nM'
  assert_failure 2
  assert_line -n 0 --partial 'sbnbd-server: memory:1\nM: not a size'
  run "$SBNBD_SERVER" $'--bo\ngus' -U s null:1M
  assert_failure 2
  assert_line -n 0 "sbnbd-server: unknown or ambiguous option '--bo\\ngus'"
  run "$SBNBD_SERVER" $'-\x01' -U s null:1M
  assert_line -n 0 "sbnbd-server: unknown option '-\\x01'"
  run env TMPDIR=$'/nonexistent/\n' "$SBNBD_SERVER" -U - null:1M
  assert_failure 1
  assert_output --regexp '^sbnbd-server: mkdtemp /nonexistent/\\n/sbnbd-[[:alnum:]]{6}: No such file or directory$'
}
