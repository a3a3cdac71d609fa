/* SPDX-License-Identifier: MIT */
/* The watcher's kernel programs, for kernels whose BPF cannot set
 * TCP_NODELAY (before Linux 6.1): they set nothing, but tell the watcher
 * (watch.c) which socket to tune, as soon as a program of the cgroup
 * that the filter takes binds or connects a TCP socket.  The watcher
 * finds that socket among the process's descriptors by its cookie and
 * sets TCP_NODELAY on it from outside.
 *
 * The bind hooks run in the binding process before listen(), so the
 * listener is normally tuned before any connection can be accepted from
 * it, and what it accepts inherits TCP_NODELAY.  The sock_ops program is
 * for the other case: a connection established from a listener the
 * watcher had not reached yet is reported too.  Every program returns 1
 * ("allow"): nothing is ever refused.
 *
 * Built like sockboost-host.bpf.c (uapi headers only), for clang 11 and
 * libbpf 0.3 too; the filter's maps are host mode's (filter.bpf.h).
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "filter.bpf.h"
#include "watch-abi.h"

#ifndef SOCK_STREAM
#define SOCK_STREAM 1
#endif

char LICENSE[] SEC ("license") = "Dual MIT/GPL";

struct {
  __uint (type, BPF_MAP_TYPE_RINGBUF);
  __uint (max_entries, SB_WATCH_RING_BYTES);
} events SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_SK_STORAGE);
  __uint (map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
  __type (key, int);
  __type (value, struct sb_watch_mark);
} watch_marks SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_ARRAY);
  __uint (max_entries, SB_WATCH_NCOUNTS);
  __type (key, __u32);
  __type (value, __u64);
} watch_counts SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_LRU_HASH);
  __uint (max_entries, SB_WATCH_MAX_RATES);
  __type (key, __u32);
  __type (value, struct sb_watch_rate);
} watch_rates SEC (".maps");

static __always_inline void
count (__u32 key)
{
  __u64 *c = bpf_map_lookup_elem (&watch_counts, &key);

  if (c != 0)
    __sync_fetch_and_add (c, 1);
}

/* Whether UID may send one more event: a token bucket per uid.  Two CPUs
 * may refill it at once and let an event or two more through: a bound,
 * not an exact count.
 */
static __always_inline int
rate_allows (__u32 uid)
{
  struct sb_watch_rate *r = bpf_map_lookup_elem (&watch_rates, &uid);
  __u64 now = bpf_ktime_get_ns (), more;

  if (r == 0) {
    struct sb_watch_rate fresh;

    fresh.at_ns = now;
    fresh.events = SB_WATCH_EVENTS_AT_ONCE - 1;
    bpf_map_update_elem (&watch_rates, &uid, &fresh, BPF_ANY);
    return 1;
  }
  more = (now - r->at_ns) * SB_WATCH_EVENTS_PER_SECOND / 1000000000ULL;
  if (more > 0) {
    r->events = r->events + more > SB_WATCH_EVENTS_AT_ONCE ?
      SB_WATCH_EVENTS_AT_ONCE : r->events + more;
    r->at_ns = now;
  }
  if (r->events == 0)
    return 0;
  r->events--;
  return 1;
}

static __always_inline void
send_event (struct sb_watch_event *e)
{
  if (!rate_allows (e->uid))
    count (SB_WATCH_COUNT_LIMITED);
  else if (bpf_ringbuf_output (&events, e, sizeof *e, 0) != 0)
    count (SB_WATCH_COUNT_LOST);
}

/* A TCP socket of this process is bound (a listener, before listen) or
 * connects: report it if the filter takes it; a bound one gets a mark,
 * which the sockets it accepts inherit.
 */
static __always_inline int
report_tcp (struct bpf_sock_addr *ctx, __u32 kind)
{
  const struct sb_host_settings *s = current_settings ();
  struct bpf_sock *sk = ctx->sk;
  struct sb_watch_event e;
  struct sb_watch_mark *m;

  if (s == 0 || sk == 0 || ctx->type != SOCK_STREAM ||
      ctx->protocol != IPPROTO_TCP)
    return 1;
  __builtin_memset (&e, 0, sizeof e);
  if (process_name (s, e.comm) != 0 ||
      !filter_takes_tcp (s, e.comm, bpf_ntohs ((__u16) ctx->user_port)))
    return 1;
  e.cookie = bpf_get_socket_cookie (ctx);
  e.tgid = (__u32) (bpf_get_current_pid_tgid () >> 32);
  e.uid = (__u32) bpf_get_current_uid_gid ();
  e.kind = kind;
  if (kind == SB_WATCH_BOUND) {
    m = bpf_sk_storage_get (&watch_marks, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
    if (m != 0) {
      m->tgid = e.tgid;
      m->uid = e.uid;
      m->tuned = 0;
      __builtin_memcpy (m->comm, e.comm, sizeof m->comm);
    }
  }
  send_event (&e);
  return 1;
}

SEC ("cgroup/bind4")
int
sb_watch_bind4 (struct bpf_sock_addr *ctx)
{
  return report_tcp (ctx, SB_WATCH_BOUND);
}

SEC ("cgroup/bind6")
int
sb_watch_bind6 (struct bpf_sock_addr *ctx)
{
  return report_tcp (ctx, SB_WATCH_BOUND);
}

SEC ("cgroup/connect4")
int
sb_watch_connect4 (struct bpf_sock_addr *ctx)
{
  return report_tcp (ctx, SB_WATCH_CONNECTED);
}

SEC ("cgroup/connect6")
int
sb_watch_connect6 (struct bpf_sock_addr *ctx)
{
  return report_tcp (ctx, SB_WATCH_CONNECTED);
}

/* A connection established from a listener that the bind hooks reported
 * but the watcher had not tuned yet (its mark, cloned at that moment,
 * says so): report it, for the process that bound the listener, which
 * will find it once it accepts it.  This runs in softirq, where the
 * current process is no one's in particular: the mark says whose it is.
 */
SEC ("sockops")
int
sb_watch_accepted (struct bpf_sock_ops *skops)
{
  struct sb_watch_event e;
  struct sb_watch_mark *m;
  struct bpf_sock *sk;

  if (skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
    return 1;
  sk = skops->sk;
  if (sk == 0)
    return 1;
  m = bpf_sk_storage_get (&watch_marks, sk, 0, 0);
  if (m == 0 || m->tuned)
    return 1;
  __builtin_memset (&e, 0, sizeof e);
  e.cookie = bpf_get_socket_cookie (skops);
  e.tgid = m->tgid;
  e.uid = m->uid;
  e.kind = SB_WATCH_ACCEPTED;
  __builtin_memcpy (e.comm, m->comm, sizeof e.comm);
  send_event (&e);
  return 1;
}
