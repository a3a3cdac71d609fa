#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What users lose most to: a storage migration by libvirt (virsh migrate
# --live --copy-storage-all, the destination's QEMU 7.2 serving the NBD
# export the source mirrors the disk into) of a fragmented disk is at
# least 3x faster for a domain enabled with 'sockboost libvirt enable'
# than for its twin without it (the entries travel with the domain, so
# both QEMUs have the library).  Twin domains migrate there and back in
# turns, once each way; medians, the disk compared after each move.
#
# How many of the destination's replies wait is a race
# (helpers-migration.bash: up to one stall of about 45 ms per MiB), and
# a migration with the library still costs 1.4-2.2 s (libvirt, the
# destination QEMU, the memory): the disk is large enough that the
# stalls outweigh that cost when fewer than half of its MiB stall.  At
# 128 MiB a spinner on the other core cut the stalls to 18-98 per plain
# migration (107-126 idle), the medians to 2.5-3.5x.  At 256 MiB:
# 178-244 per plain migration idle, 91-231 with the spinner (6.8-12.4 s
# plain against 1.4-2.2 s; medians 6.0-7.9x idle, 4.6-5.7x with the
# spinner).

load helpers

setup_file () {
  lv_start src
  lv_start dst --netns-of "$LV_INIT"
  lv_use dst
  truncate -s 256M "$(lv_image plain)" "$(lv_image boosted)"
  lv_use src
  lv_define_twins 256 plain boosted
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
# arrived whole, and append the seconds to the array named VAR and the
# delayed ACKs it took (both daemons share a network namespace) to the
# array named VAR_ACKS.
migrate_timed () {
  local -n lv_seconds=$1 lv_acks=${1}_ACKS
  local domain=$2 from=$3 to=$4 to_uri t acks
  lv_use "$to"
  to_uri=$LV_URI
  lv_use "$from"
  acks=$(delayed_acks lv_netns)
  time_command t timeout 300 virsh -q -c "$LV_URI" migrate --live \
    --copy-storage-all --persistent --undefinesource "$domain" "$to_uri" \
    --migrateuri tcp://127.0.0.1 --listen-address 127.0.0.1
  lv_acks+=("$(($(delayed_acks lv_netns) - acks))")
  lv_use "$to"
  cmp "$BATS_FILE_TMPDIR/disk.img" "$(lv_image "$domain")"
  lv_seconds+=("$t")
}

@test "virsh migrate --copy-storage-all: >= 3x faster with sockboost libvirt enable" {
  local plain=() boosted=() plain_ACKS=() boosted_ACKS=()
  migrate_timed plain plain src dst
  migrate_timed boosted boosted src dst
  migrate_timed plain plain dst src
  migrate_timed boosted boosted dst src
  echo "migration: $(times_and_acks plain) plain, $(times_and_acks boosted) with the library" >&3
  assert_speedup "$(median_of "${plain[@]}")" "$(median_of "${boosted[@]}")" 3
}
