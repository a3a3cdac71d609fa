/* SPDX-License-Identifier: MIT */
/* Host mode's counting: the waits that Nagle's algorithm and a delayed
 * ACK cause on the TCP connections of the NBD programs host mode's
 * filter takes, their time and the bytes moved, per program and per
 * process.  It changes no socket, so it runs with the tuning or alone
 * (`sockboost host enable --observe`).
 *
 * The bind and connect hooks run in the process that makes the call:
 * they tag the sockets the filter takes with the process's name, pid
 * and uid (socket storage, cloned into the sockets a tagged listener
 * accepts), so that nothing a process says later, and nothing another
 * process does, changes whose socket it is.  Beside the kernel's TCP
 * parts, whose hooks take the same sockets, those hooks tag them and
 * these are not attached (stall-tags.bpf.h).  On a tagged connection the
 * sock_ops program asks the kernel for a callback on each round trip
 * measured and on each change of state: no other socket costs more
 * than the few calls every connection makes at its start.  A stall is
 * a round trip at least SB_STALLS_THRESHOLD_US longer than the
 * connection's shortest: the sender of a segment that waited for a
 * delayed ACK measures it (doc/host-stalls.md).
 *
 * Written for clang 11 and libbpf 0.3 too (filter.bpf.h).  Every program
 * returns 1 ("allow"), whatever happens.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "filter.bpf.h"
#include "counts.bpf.h"
#include "stall-tags.bpf.h"
#include "stalls-abi.h"

/* Linux 5.10's uapi <linux/stddef.h> (Debian 11) makes __always_inline a
 * plain inline, which clang 11 may leave out of line: count's six
 * arguments are more than a BPF call may pass ("defined with too many
 * args").  Forced here, whatever the headers say.
 */
#undef __always_inline
#define __always_inline inline __attribute__ ((always_inline))

#ifndef SOCK_STREAM
#define SOCK_STREAM 1
#endif
#define SB_TCP_CLOSE 7          /* the kernel's TCP_CLOSE state */

char LICENSE[] SEC ("license") = "Dual MIT/GPL";

/* Preallocated, keyed by pid. */
struct {
  __uint (type, BPF_MAP_TYPE_HASH);
  __uint (max_entries, SB_STALLS_MAX_PROCESS_ROWS);
  __type (key, __u32);
  __type (value, struct sb_stalls_process);
} stall_processes SEC (".maps");

/* Tag the socket of CTX if the filter takes the calling process: when
 * nothing is tuned (--observe), or the watcher is the TCP part (which
 * reports, and tags nothing).  Beside the kernel's TCP parts, these
 * hooks are not attached: those parts tag the sockets they take.
 */
static __always_inline int
tag_tcp (struct bpf_sock_addr *ctx)
{
  const struct sb_host_settings *s = current_settings ();
  struct bpf_sock *sk = ctx->sk;
  struct sb_host_name_key entry;
  char comm[SB_HOST_COMM_LEN];

  if (s == 0 || sk == 0 || ctx->type != SOCK_STREAM ||
      ctx->protocol != IPPROTO_TCP)
    return 1;
  if (process_name (s, comm) != 0 ||
      !taken (s, comm, bpf_ntohs ((__u16) ctx->user_port), &entry))
    return 1;
  tag_socket (sk, &entry, comm);
  return 1;
}

SEC ("cgroup/bind4")
int
sb_stalls_bind4 (struct bpf_sock_addr *ctx)
{
  return tag_tcp (ctx);
}

SEC ("cgroup/bind6")
int
sb_stalls_bind6 (struct bpf_sock_addr *ctx)
{
  return tag_tcp (ctx);
}

SEC ("cgroup/connect4")
int
sb_stalls_connect4 (struct bpf_sock_addr *ctx)
{
  return tag_tcp (ctx);
}

SEC ("cgroup/connect6")
int
sb_stalls_connect6 (struct bpf_sock_addr *ctx)
{
  return tag_tcp (ctx);
}

static __always_inline void
add_counts (struct sb_host_counts *c, __u64 stalls, __u64 stall_us,
            __u64 sent, __u64 received, __u64 connections)
{
  if (c->first_ns == 0)
    c->first_ns = bpf_ktime_get_boot_ns ();
  if (stalls)
    __sync_fetch_and_add (&c->stalls, stalls);
  if (stall_us)
    __sync_fetch_and_add (&c->stall_us, stall_us);
  if (sent)
    __sync_fetch_and_add (&c->bytes_sent, sent);
  if (received)
    __sync_fetch_and_add (&c->bytes_received, received);
  if (connections)
    __sync_fetch_and_add (&c->connections, connections);
}

/* The row of TAG's process, made on first use; 0 when the table is full. */
static __always_inline struct sb_host_counts *
process_row (const struct sb_stalls_tag *tag)
{
  struct sb_stalls_process zero, *p;
  __u32 key = tag->tgid;

  p = bpf_map_lookup_elem (&stall_processes, &key);
  if (p == 0) {
    __builtin_memset (&zero, 0, sizeof zero);
    __builtin_memcpy (&zero.entry, &tag->entry, sizeof zero.entry);
    __builtin_memcpy (zero.comm, tag->comm, SB_HOST_COMM_LEN);
    zero.uid = tag->uid;
    bpf_map_update_elem (&stall_processes, &key, &zero, BPF_NOEXIST);
    p = bpf_map_lookup_elem (&stall_processes, &key);
  }
  /* A pid used again by a process of another user: not this row. */
  if (p == 0 || p->uid != tag->uid)
    return 0;
  return &p->counts;
}

static __always_inline void
count (const struct sb_stalls_tag *tag, __u64 stalls, __u64 stall_us,
       __u64 sent, __u64 received, __u64 connections)
{
  struct sb_host_counts *c = count_row (&tag->entry, tag->uid);

  if (c != 0)
    add_counts (c, stalls, stall_us, sent, received, connections);
  c = process_row (tag);
  if (c != 0)
    add_counts (c, stalls, stall_us, sent, received, connections);
}

/* The bytes CTX's connection moved since TAG last counted them: all of
 * them when ALL (at close), else only once a batch has gathered.
 */
static __always_inline void
count_bytes (struct bpf_sock_ops *ctx, struct sb_stalls_tag *tag,
             __u64 stalls, __u64 stall_us, int all)
{
  __u64 sent = ctx->bytes_acked - tag->acked;
  __u64 received = ctx->bytes_received - tag->received;

  if (!all && stalls == 0 && sent + received < SB_STALLS_BYTES_BATCH)
    return;
  tag->acked = ctx->bytes_acked;
  tag->received = ctx->bytes_received;
  count (tag, stalls, stall_us, sent, received, 0);
}

/* A round trip measured on a tagged connection.  Kernels before 6.10
 * give no sample, only srtt_us as it was before the sample (eight times
 * the smoothed round trip), so the sample before this one is worked
 * back from the change it made: the kernel's srtt += m - srtt / 8 (m
 * the first sample when srtt was 0: srtt = 8 m).  The one rule for every
 * kernel; a stall is counted one ACK late, and the last sample of a
 * connection is never seen (its last ACKs are never delayed: a FIN is
 * acknowledged at once).
 */
static __always_inline void
round_trip (struct bpf_sock_ops *ctx, struct sb_stalls_tag *tag)
{
  __u32 srtt = ctx->srtt_us, shortest = ctx->rtt_min;
  __u64 stalls = 0, stall_us = 0;

  if (tag->has_prev) {
    __u32 prev = tag->prev_srtt;
    __u32 sample = prev == 0 ? srtt >> 3 : srtt - prev + (prev >> 3);

    /* A sample below 2^31 is one the rule can make; beyond, the kernel
     * and the rule disagree and nothing is counted.
     */
    if (sample < (1u << 31) &&
        sample >= (__u64) shortest + SB_STALLS_THRESHOLD_US) {
      stalls = 1;
      stall_us = sample - shortest;
    }
  }
  tag->prev_srtt = srtt;
  tag->has_prev = 1;
  count_bytes (ctx, tag, stalls, stall_us, 0);
}

SEC ("sockops")
int
sb_stalls_sockops (struct bpf_sock_ops *ctx)
{
  struct bpf_sock *sk;
  struct sb_stalls_tag *tag;
  __u32 op = ctx->op;

  if (op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
      op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB &&
      op != BPF_SOCK_OPS_RTT_CB && op != BPF_SOCK_OPS_STATE_CB)
    return 1;
  sk = ctx->sk;
  if (sk == 0)
    return 1;
  tag = bpf_sk_storage_get (&stall_tags, sk, 0, 0);
  if (tag == 0)
    return 1;
  if (op == BPF_SOCK_OPS_RTT_CB)
    round_trip (ctx, tag);
  else if (op == BPF_SOCK_OPS_STATE_CB) {
    if (ctx->args[1] == SB_TCP_CLOSE)
      count_bytes (ctx, tag, 0, 0, 1);
  }
  else {
    /* A connection of its own: what a listener's tag held is not its. */
    tag->has_prev = 0;
    tag->acked = ctx->bytes_acked;
    tag->received = ctx->bytes_received;
    bpf_sock_ops_cb_flags_set (ctx, ctx->bpf_sock_ops_cb_flags |
                               BPF_SOCK_OPS_RTT_CB_FLAG |
                               BPF_SOCK_OPS_STATE_CB_FLAG);
    count (tag, 0, 0, 0, 0, 1);
  }
  return 1;
}
