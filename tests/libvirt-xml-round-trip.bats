#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The property test's generated definitions (tests/python/domaingen.py),
# as libvirt keeps them: sockboost libvirt enable adds lines only inside
# the top-level <qemu:commandline> (and the namespace on <domain>), and
# disable gives back libvirt's own text byte for byte.  The seed is
# printed; SB_PROPERTY_SEED=N replays it.
bats_require_minimum_version 1.5.0
load helpers

DEFINITIONS=6

setup_file () {
  lv_start roundtrip
}

teardown_file () {
  lv_stop
}

@test "generated definitions through libvirt: enable adds only the block, disable gives back its text" {
  requires python3
  local seed=${SB_PROPERTY_SEED:-$RANDOM} dir=$BATS_TEST_TMPDIR/defs xml name
  echo "# seed $seed" >&3
  mkdir "$dir"
  python3 "$SB_ROOT/tests/python/domaingen.py" --libvirt "$seed" "$DEFINITIONS" "$dir"
  for xml in "$dir"/*.xml; do
    name=$(basename "$xml" .xml)
    lv_virsh define "$xml" >/dev/null
    lv_virsh dumpxml --inactive "$name" >"$dir/$name.before"
    "$SOCKBOOST" libvirt enable -c "$LV_URI" --sndbuf 4M --no-cork \
      --log-file "/var/log/sb %p & 'x'.log" "$name" >/dev/null
    lv_virsh dumpxml --inactive "$name" >"$dir/$name.enabled"
    lv_assert_only_block_added "$dir/$name.before" "$dir/$name.enabled"
    "$SOCKBOOST" libvirt disable -c "$LV_URI" "$name" >/dev/null
    lv_virsh dumpxml --inactive "$name" >"$dir/$name.after"
    cmp "$dir/$name.before" "$dir/$name.after" ||
      fail "seed $seed: $name is not given back (SB_PROPERTY_SEED=$seed replays it)"
  done
}
