#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A domain enabled by a sockboost that kept no record (0.1.0 wrote its
# <qemu:env> entries alone) can still be disabled: status says it is
# enabled, in the older form, and disable takes out exactly those
# entries (LD_PRELOAD naming the library by its absolute path, the
# variables the library reads), leaves the user's own, and gives the
# definition back byte for byte.  An LD_PRELOAD that is no longer
# exactly the library's path is not taken for one of ours.
bats_require_minimum_version 1.5.0
load helpers

QEMU_NS=http://libvirt.org/schemas/domain/qemu/1.0

setup_file () {
  lv_start older
}

teardown_file () {
  lv_stop
}

# Define domain $1 (already defined) again with a top-level block
# holding the lines of file $2, as the older sockboost wrote its block:
# the namespace at the end of <domain>'s tag, the block last.
define_with_block () {
  lv_virsh dumpxml --inactive "$1" | sed "1s|>\$| xmlns:qemu='$QEMU_NS'>|" |
    insert_before '^</domain>' "$2" >"$BATS_TEST_TMPDIR/$1.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/$1.xml" >/dev/null
}

# Standard input with the lines of file $2 before each line matching $1.
insert_before () {
  awk -v pattern="$1" -v lines="$2" '
    $0 ~ pattern { while ((getline line < lines) > 0) print line; close(lines) }
    { print }'
}

# A new domain $1; its definition before any entry in $1.before.
new_domain () {
  truncate -s 8M "$(lv_image "$1")"
  lv_define_domain "$1"
  lv_virsh dumpxml --inactive "$1" >"$BATS_TEST_TMPDIR/$1.before"
}

# The block as the older 'sockboost libvirt enable --sndbuf 4M
# --no-cork' wrote it, with the lines $1... of the user's own before.
older_block () {
  printf '  <qemu:commandline>\n'
  printf '%s\n' "$@"
  printf "    <qemu:env name='%s' value='%s'/>\\n" LD_PRELOAD "$LIBSOCKBOOST" \
    SOCKBOOST_CORK off SOCKBOOST_SNDBUF 4M
  printf '  </qemu:commandline>\n'
}

@test "status says enabled in the older form; disable gives the definition back" {
  new_domain older
  older_block >"$BATS_TEST_TMPDIR/block"
  define_with_block older "$BATS_TEST_TMPDIR/block"
  run "$SOCKBOOST" libvirt status -c "$LV_URI" older
  assert_success
  assert_line "definition: enabled, in the form of an older sockboost, without a record (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_CORK=off, SOCKBOOST_SNDBUF=4M)"
  run "$SOCKBOOST" libvirt enable -c "$LV_URI" older
  assert_failure 1
  assert_output --partial "older is enabled already (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_CORK=off, SOCKBOOST_SNDBUF=4M)"
  run "$SOCKBOOST" libvirt disable -c "$LV_URI" older
  assert_success
  assert_output "older: disabled (LD_PRELOAD=$LIBSOCKBOOST, SOCKBOOST_CORK=off, SOCKBOOST_SNDBUF=4M removed); it takes effect when the domain is next started"
  lv_virsh dumpxml --inactive older >"$BATS_TEST_TMPDIR/after"
  cmp "$BATS_TEST_TMPDIR/older.before" "$BATS_TEST_TMPDIR/after"
}

@test "the user's own entries in the block stay, in place" {
  new_domain own
  printf '  <qemu:commandline>\n%s\n%s\n  </qemu:commandline>\n' \
    "    <qemu:arg value='-no-user-config'/>" \
    "    <qemu:env name='SOCKBOOST_LIBRARY' value='/opt/sb/libsockboost.so'/>" \
    >"$BATS_TEST_TMPDIR/user"
  define_with_block own "$BATS_TEST_TMPDIR/user"
  lv_virsh dumpxml --inactive own >"$BATS_TEST_TMPDIR/own.before"
  # The older enable added its lines at the end of the block.
  older_block | sed '1d;$d' >"$BATS_TEST_TMPDIR/ours"
  insert_before '^  </qemu:commandline>' "$BATS_TEST_TMPDIR/ours" \
    <"$BATS_TEST_TMPDIR/own.before" >"$BATS_TEST_TMPDIR/own.xml"
  lv_virsh define "$BATS_TEST_TMPDIR/own.xml" >/dev/null
  run "$SOCKBOOST" libvirt status -c "$LV_URI" own
  assert_line --partial "definition: enabled, in the form of an older sockboost"
  run "$SOCKBOOST" libvirt disable -c "$LV_URI" own
  assert_success
  lv_virsh dumpxml --inactive own >"$BATS_TEST_TMPDIR/after"
  cmp "$BATS_TEST_TMPDIR/own.before" "$BATS_TEST_TMPDIR/after"
}

@test "an LD_PRELOAD joined with another library since: not enabled, nothing changed" {
  local jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
  new_domain joined
  older_block | sed "s|value='$LIBSOCKBOOST'|value='$jemalloc:$LIBSOCKBOOST'|" \
    >"$BATS_TEST_TMPDIR/block"
  define_with_block joined "$BATS_TEST_TMPDIR/block"
  lv_virsh dumpxml --inactive joined >"$BATS_TEST_TMPDIR/joined.before"
  run "$SOCKBOOST" libvirt status -c "$LV_URI" joined
  assert_line "definition: not enabled"
  run --separate-stderr "$SOCKBOOST" libvirt disable -c "$LV_URI" joined
  assert_failure 1
  assert_equal "$stderr" "sockboost: libvirt: joined is not enabled: its definition has no sockboost <qemu:env> entries"
  lv_virsh dumpxml --inactive joined >"$BATS_TEST_TMPDIR/after"
  cmp "$BATS_TEST_TMPDIR/joined.before" "$BATS_TEST_TMPDIR/after"
}
