/* SPDX-License-Identifier: MIT */
/* Host mode's kernel programs: TCP_NODELAY on the TCP connections, and a
 * bigger send buffer on the unix stream sockets, of the NBD programs of a
 * cgroup, set by the kernel itself; nothing is loaded into the programs.
 * All are sock_addr hooks, run in the process that binds, connects or
 * asks for a socket's name: they see its name, and cost nothing on the
 * sockets of a program that makes no such call.
 *
 * Built with clang's BPF target against the uapi headers only (the
 * context structs are a stable ABI): no vmlinux.h of the build machine.
 * Each program decides little and never refuses anything: every program
 * returns 1 ("allow"), whatever happens.
 */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <asm/socket.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "host-abi.h"
#include "filter.bpf.h"
#include "counts.bpf.h"
#include "stall-tags.bpf.h"

/* The few socket constants of <sys/socket.h> that no uapi header has;
 * <asm/socket.h> of the architecture gives SOL_SOCKET and SO_SNDBUF.
 */
#define AF_UNIX 1
#ifndef SOCK_STREAM
#define SOCK_STREAM 1
#endif
#define SB_TCP_LISTEN 10        /* sk_state of a listening socket */

char LICENSE[] SEC ("license") = "Dual MIT/GPL";

/* What host mode did to a socket, for status; BPF_F_CLONE: a socket
 * accepted from a marked listener is marked too.
 */
struct {
  __uint (type, BPF_MAP_TYPE_SK_STORAGE);
  __uint (map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
  __type (key, int);
  __type (value, struct sb_host_mark);
} marks SEC (".maps");

/* Count one socket of a process that ENTRY took, in counter WHICH of
 * its user's row (counts.bpf.h).  The count is lost only if the row of
 * the others is gone, never the tuning.
 */
static __always_inline void
count (const struct sb_host_name_key *entry, int which)
{
  struct sb_host_counts *c = count_row (entry,
                                        (__u32) bpf_get_current_uid_gid ());

  if (c == NULL)
    return;
  if (which == SB_HOST_COUNT_TCP_BIND)
    __sync_fetch_and_add (&c->tcp_bind, 1);
  else if (which == SB_HOST_COUNT_TCP_CONNECT)
    __sync_fetch_and_add (&c->tcp_connect, 1);
  else
    __sync_fetch_and_add (&c->unix_sndbuf, 1);
}

/* Leave MARK on SK: what host mode did to it, and which program made it
 * (a socket accepted from a marked listener gets a copy).
 */
static __always_inline void
mark_socket (struct bpf_sock *sk, const char comm[SB_HOST_COMM_LEN], __u32 flag)
{
  struct sb_host_mark *mark;

  mark = bpf_sk_storage_get (&marks, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE);
  if (mark == NULL)
    return;
  __builtin_memcpy (mark->comm, comm, SB_HOST_COMM_LEN);
  mark->flags |= flag;
}

/* A TCP socket of this process is bound (a server's listener, before
 * listen) or connects (a client): TCP_NODELAY if the filter takes it.
 * A socket the kernel accepts from a listener inherits the listener's
 * TCP_NODELAY, so every connection of a server is tuned without a hook
 * of its own.  Both run in the process that makes the call, so the
 * program's name is at hand; PORT is the port it binds or connects to.
 * With the counting beside them (S->tag_tcp), they tag the socket for
 * it too: its own hooks are then not attached.
 */
static __always_inline int
tune_tcp (struct bpf_sock_addr *ctx, int is_bind)
{
  const struct sb_host_settings *s = current_settings ();
  struct sb_host_name_key entry;
  char comm[SB_HOST_COMM_LEN];
  struct bpf_sock *sk = ctx->sk;
  int one = 1;

  if (s == NULL || sk == NULL || ctx->type != SOCK_STREAM ||
      ctx->protocol != IPPROTO_TCP)
    return 1;
  if (process_name (s, comm) != 0 ||
      !taken (s, comm, bpf_ntohs ((__u16) ctx->user_port), &entry))
    return 1;
  if (s->tag_tcp)
    tag_socket (sk, &entry, comm);
  if (bpf_setsockopt (ctx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    return 1;
  mark_socket (sk, comm, SB_HOST_MARK_NODELAY);
  count (&entry, is_bind ? SB_HOST_COUNT_TCP_BIND : SB_HOST_COUNT_TCP_CONNECT);
  return 1;
}

SEC ("cgroup/bind4")
int
sb_host_tcp_bind4 (struct bpf_sock_addr *ctx)
{
  return tune_tcp (ctx, 1);
}

SEC ("cgroup/bind6")
int
sb_host_tcp_bind6 (struct bpf_sock_addr *ctx)
{
  return tune_tcp (ctx, 1);
}

SEC ("cgroup/connect4")
int
sb_host_tcp_connect4 (struct bpf_sock_addr *ctx)
{
  return tune_tcp (ctx, 0);
}

SEC ("cgroup/connect6")
int
sb_host_tcp_connect6 (struct bpf_sock_addr *ctx)
{
  return tune_tcp (ctx, 0);
}

/* The send buffer of a unix stream socket, SO_SNDBUF as getsockopt
 * reads it (twice the request), or -1.
 */
static __always_inline int
unix_sndbuf (struct bpf_sock_addr *ctx)
{
  int value;

  if (bpf_getsockopt (ctx, SOL_SOCKET, SO_SNDBUF, &value, sizeof value) != 0)
    return -1;
  return value;
}

/* A unix stream socket of this process connects, or is asked for its
 * own name: a client's socket is seen at connect, a server's accepted
 * socket when the server asks for its name (QEMU and nbd-server do, on
 * each socket they accept).  Raise its send buffer to the request,
 * never lower it.  The kernel clips the request at net.core.wmem_max,
 * as for any process, and BPF cannot force: a socket forced above that
 * (SO_SNDBUFFORCE) would be cut down to it, so the comparison is with
 * what the request is granted (measured by enable), not the request.
 * There is no getpeername hook: for getpeername the kernel hands the
 * hook the peer's socket, the other end, which may belong to anyone;
 * host mode changes only the caller's own socket.
 */
static __always_inline int
tune_unix (struct bpf_sock_addr *ctx)
{
  const struct sb_host_settings *s = current_settings ();
  struct sb_host_name_key entry;
  char comm[SB_HOST_COMM_LEN];
  struct bpf_sock *sk = ctx->sk;
  int request, before, after;

  if (s == NULL || s->sndbuf == 0 || sk == NULL || ctx->type != SOCK_STREAM ||
      sk->state == SB_TCP_LISTEN || s->filter == SB_HOST_FILTER_PORTS)
    return 1;
  if (process_name (s, comm) != 0 || !taken (s, comm, 0, &entry))
    return 1;
  request = (int) s->sndbuf;
  before = unix_sndbuf (ctx);
  if (before < 0 || (__u32) before >= s->sndbuf_granted)
    return 1;
  if (bpf_setsockopt (ctx, SOL_SOCKET, SO_SNDBUF, &request, sizeof request) != 0)
    return 1;
  after = unix_sndbuf (ctx);
  if (after <= before)
    return 1;
  mark_socket (sk, comm, SB_HOST_MARK_SNDBUF);
  count (&entry, SB_HOST_COUNT_UNIX);
  return 1;
}

/* libbpf before 1.3 does not know these section names: sb-host registers
 * them (attach types 49 and 53 of Linux 6.7).
 */
SEC ("cgroup/connect_unix")
int
sb_host_unix_connect (struct bpf_sock_addr *ctx)
{
  return tune_unix (ctx);
}

SEC ("cgroup/getsockname_unix")
int
sb_host_unix_getsockname (struct bpf_sock_addr *ctx)
{
  return tune_unix (ctx);
}
