#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What the man pages say is not said again in README.md or doc/*.md,
# where it would drift: the tables of variables and options, and the
# AppArmor rule for QEMU started by libvirt, which sockboost(1) alone
# gives.
load helpers

@test "no table of variables or options outside the man pages" {
  run grep -nE '^\| *`(SOCKBOOST_[A-Z_]+|--?[a-z])' "$SB_ROOT/README.md" "$SB_ROOT"/doc/*.md
  assert_output ""
}

@test "the AppArmor rule for libvirt's QEMU is in sockboost(1) only" {
  run grep -lE 'libsockboost\.so mr,|abstractions/libvirt' \
    "$SB_ROOT/README.md" "$SB_ROOT"/doc/*.md "$SB_ROOT"/doc/*.[17]
  assert_output "$SB_ROOT/doc/sockboost.1"
}
