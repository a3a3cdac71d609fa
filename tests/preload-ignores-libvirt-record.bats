#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The record that 'sockboost libvirt enable' keeps among a domain's
# <qemu:env> entries, SOCKBOOST_LIBVIRT_ENABLED, reaches QEMU's
# environment with them: the library and sb-config take it for none of
# their variables and say nothing of it (a guard for any warning about
# unknown SOCKBOOST_* names).
# bats file_tags=sanitize

load helpers

# As enable writes it: each value %-quoted.
RECORD='LD_PRELOAD=/usr/lib/x86_64-linux-gnu/sockboost/libsockboost.so SOCKBOOST_SNDBUF=4M SOCKBOOST_LOG_FILE=/var/log/sb%20%25p.log'

# The library's lines for a program that makes no socket call, at
# SOCKBOOST_DEBUG=$1, with the environment $2... added; pids taken out.
library_lines () {
  env LD_PRELOAD="$(preload_value)" SOCKBOOST_DEBUG="$1" "${@:2}" sh -c 'echo ran' 2>&1 |
    sed -E 's/^(sockboost\[[^ ]+) [0-9]+\]/\1]/'
}

@test "the library: no warning, and the settings of the other variables" {
  run library_lines 1 SOCKBOOST_LIBVIRT_ENABLED="$RECORD"
  assert_output ran
  run library_lines 2 SOCKBOOST_LIBVIRT_ENABLED="$RECORD" SOCKBOOST_SNDBUF=1M
  assert_line --partial "settings: sndbuf 1048576,"
  assert_equal "$output" "$(library_lines 2 SOCKBOOST_SNDBUF=1M)"
}

@test "sb-config: the same decisions, no warning and no invalid value" {
  run env SOCKBOOST_LIBVIRT_ENABLED="$RECORD" SOCKBOOST_SNDBUF=1M "$SB_BUILD/tools/sb-config"
  assert_success
  assert_line $'sndbuf\t1048576'
  refute_line --regexp $'^(warning|invalid)\t'
  assert_equal "$output" "$(env -u SOCKBOOST_LIBVIRT_ENABLED SOCKBOOST_SNDBUF=1M "$SB_BUILD/tools/sb-config")"
}
