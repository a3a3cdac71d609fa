/* SPDX-License-Identifier: MIT */
/* tests/progs/socket-class's kernel half: the cgroup v1 class of every
 * TCP and unix socket of this network namespace, as the kernel keeps it
 * in the socket (sk_cgrp_data: the net_cls classid that tc's cgroup
 * classifier and bpf_skb_cgroup_classid read, the net_prio index that
 * picks the ifpriomap entry of each packet), one line per socket:
 * "INODE CLASSID PRIOIDX".  Socket iterators (Linux 5.9 for TCP, 5.17
 * for unix); the kernel's types are reached by CO-RE, declared here only
 * as far as they are read.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC ("license") = "Dual MIT/GPL";

/* TCP's states of a socket that is not a full one. */
#define TCP_TIME_WAIT 6
#define TCP_NEW_SYN_RECV 12

#define CO_RE __attribute__ ((preserve_access_index))

struct seq_file;
struct inode { unsigned long i_ino; } CO_RE;
struct file { struct inode *f_inode; } CO_RE;
struct socket { struct file *file; } CO_RE;
struct sock_cgroup_data { __u32 classid; __u16 prioidx; } CO_RE;
struct sock_common { unsigned char skc_state; } CO_RE;
struct sock {
  struct sock_common __sk_common;
  struct sock_cgroup_data sk_cgrp_data;
  struct socket *sk_socket;
} CO_RE;
struct unix_sock { struct sock sk; } CO_RE;
struct bpf_iter_meta { struct seq_file *seq; } CO_RE;
struct bpf_iter__tcp {
  struct bpf_iter_meta *meta;
  struct sock_common *sk_common;
} CO_RE;
struct bpf_iter__unix {
  struct bpf_iter_meta *meta;
  struct unix_sock *unix_sk;
} CO_RE;

/* Inline: the iterator's seq_file must reach bpf_seq_printf with its type. */
static __always_inline void
show (struct seq_file *seq, struct sock *sk)
{
  unsigned long inode = BPF_CORE_READ (sk, sk_socket, file, f_inode, i_ino);
  __u32 classid = BPF_CORE_READ (sk, sk_cgrp_data.classid);
  __u16 prioidx = BPF_CORE_READ (sk, sk_cgrp_data.prioidx);

  /* A socket no file holds (being set up, or an accepted one not yet
   * accepted) has no inode to be asked for by.
   */
  if (inode != 0)
    BPF_SEQ_PRINTF (seq, "%lu %u %u\n", inode, classid, prioidx);
}

SEC ("iter/tcp")
int
tcp_class (struct bpf_iter__tcp *ctx)
{
  struct sock_common *skc = ctx->sk_common;
  unsigned char state;

  if (skc == (void *) 0)
    return 0;
  state = BPF_CORE_READ (skc, skc_state);
  if (state != TCP_TIME_WAIT && state != TCP_NEW_SYN_RECV)
    show (ctx->meta->seq, (struct sock *) skc);
  return 0;
}

SEC ("iter/unix")
int
unix_class (struct bpf_iter__unix *ctx)
{
  struct unix_sock *u = ctx->unix_sk;

  if (u != (void *) 0)
    show (ctx->meta->seq, &u->sk);
  return 0;
}
