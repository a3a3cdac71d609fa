/* SPDX-License-Identifier: MIT */
/* The counting's tags (stalls-abi.h): the "stall_tags" socket storage
 * and how a bind or connect hook tags a socket the filter took.  Both
 * objects have it: host mode's TCP hooks tag for the counting when it
 * runs beside them (one program a bind or connect, not two), the
 * counting's own hooks when nothing is tuned (--observe) or when the
 * watcher is the TCP part; a loader gives them the same map.  Written
 * for clang 11 and libbpf 0.3 too (filter.bpf.h).
 */
#ifndef SOCKBOOST_HOST_STALL_TAGS_BPF_H
#define SOCKBOOST_HOST_STALL_TAGS_BPF_H

#include "host-abi.h"
#include "stalls-abi.h"

/* BPF_F_CLONE: a socket accepted from a tagged listener is tagged too. */
struct {
  __uint (type, BPF_MAP_TYPE_SK_STORAGE);
  __uint (map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
  __type (key, int);
  __type (value, struct sb_stalls_tag);
} stall_tags SEC (".maps");

/* Tag SK as a socket of the calling process, named COMM, which the
 * filter's ENTRY took: in its own context, so nothing it says later
 * changes whose socket it is.
 */
static __always_inline void
tag_socket (struct bpf_sock *sk, const struct sb_host_name_key *entry,
            const char comm[SB_HOST_COMM_LEN])
{
  struct sb_stalls_tag *tag;

  tag = bpf_sk_storage_get (&stall_tags, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
  if (tag == 0)
    return;
  __builtin_memcpy (&tag->entry, entry, sizeof *entry);
  tag->tgid = (__u32) (bpf_get_current_pid_tgid () >> 32);
  tag->uid = (__u32) bpf_get_current_uid_gid ();
  __builtin_memcpy (tag->comm, comm, SB_HOST_COMM_LEN);
}

#endif /* SOCKBOOST_HOST_STALL_TAGS_BPF_H */
