/* SPDX-License-Identifier: MIT */
/* Host mode's "counts" hash as the kernel programs use it, shared by
 * every object of host mode that counts (a loader gives them the same
 * map): the row of a filter entry and a user (host-abi.h).  Written for
 * clang 11 and libbpf 0.3 too (filter.bpf.h).
 */
#ifndef SOCKBOOST_HOST_COUNTS_BPF_H
#define SOCKBOOST_HOST_COUNTS_BPF_H

#include "host-abi.h"

/* Preallocated: a row is never made short of memory, and rows are never
 * removed.
 */
struct {
  __uint (type, BPF_MAP_TYPE_HASH);
  __uint (max_entries, SB_HOST_MAX_COUNT_ROWS);
  __type (key, struct sb_host_count_key);
  __type (value, struct sb_host_counts);
} counts SEC (".maps");

/* The row of ENTRY and UID: made on first use, or the row of the others
 * when the table is full (made at enable, like root's); 0 only if that
 * one is gone.
 */
static __always_inline struct sb_host_counts *
count_row (const struct sb_host_name_key *entry, __u32 uid)
{
  struct sb_host_count_key key;
  struct sb_host_counts zero, *c;

  __builtin_memcpy (&key.entry, entry, sizeof key.entry);
  key.uid = uid;
  c = bpf_map_lookup_elem (&counts, &key);
  if (c == 0) {
    __builtin_memset (&zero, 0, sizeof zero);
    bpf_map_update_elem (&counts, &key, &zero, BPF_NOEXIST);
    c = bpf_map_lookup_elem (&counts, &key);
  }
  if (c == 0) {
    key.uid = SB_HOST_UID_OTHERS;
    c = bpf_map_lookup_elem (&counts, &key);
  }
  return c;
}

#endif /* SOCKBOOST_HOST_COUNTS_BPF_H */
