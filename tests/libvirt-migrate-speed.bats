#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What users lose most to: a storage migration by libvirt (virsh migrate
# --live --copy-storage-all, the destination's QEMU 7.2 serving the NBD
# export the source mirrors the disk into) of a fragmented disk is at
# least 3x faster for a domain enabled with 'sockboost libvirt enable'
# than for its twin without it (the entries travel with the domain, so
# both QEMUs have the library).  Twin domains migrate there and back in
# turns; medians, the disk compared after each move.  Measured idle:
# 256 MiB, 10.5 s plain against 0.90 s (11.7x).

load helpers

setup_file () {
  lv_start src
  lv_start dst --netns-of "$LV_INIT"
  lv_use dst
  truncate -s 128M "$(lv_image plain)" "$(lv_image boosted)"
  lv_use src
  lv_define_twins 128 plain boosted
  cp --sparse=always "$(lv_image plain)" "$BATS_FILE_TMPDIR/disk.img"
  "$SOCKBOOST" libvirt enable -c "$LV_URI" boosted >/dev/null
  lv_virsh start plain >/dev/null
  lv_virsh start boosted >/dev/null
}

teardown_file () {
  lv_use dst
  lv_stop
  lv_use src
  lv_stop
}

# Migrate DOMAIN from daemon FROM to daemon TO, check that its disk
# arrived whole, and append the seconds to the array named VAR.
migrate_timed () {
  local -n lv_seconds=$1
  local domain=$2 from=$3 to=$4 to_uri t
  lv_use "$to"
  to_uri=$LV_URI
  lv_use "$from"
  time_command t timeout 300 virsh -q -c "$LV_URI" migrate --live \
    --copy-storage-all --persistent --undefinesource "$domain" "$to_uri" \
    --migrateuri tcp://127.0.0.1 --listen-address 127.0.0.1
  lv_use "$to"
  cmp "$BATS_FILE_TMPDIR/disk.img" "$(lv_image "$domain")"
  lv_seconds+=("$t")
}

@test "virsh migrate --copy-storage-all: >= 3x faster with sockboost libvirt enable" {
  local plain=() boosted=() there=src back=dst
  for _ in 1 2; do
    migrate_timed plain plain "$there" "$back"
    migrate_timed boosted boosted "$there" "$back"
    migrate_timed plain plain "$back" "$there"
    migrate_timed boosted boosted "$back" "$there"
  done
  echo "migration: ${plain[*]} s plain, ${boosted[*]} s with the library" >&3
  assert_speedup "$(median_of "${plain[@]}")" "$(median_of "${boosted[@]}")" 3
}
