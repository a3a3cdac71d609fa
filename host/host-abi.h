/* SPDX-License-Identifier: MIT */
/* What the kernel programs (sockboost-host.bpf.c) and sb-host share: the
 * layout of the maps, nothing else.  Included by both sides, so only
 * fixed-size kernel types (linux/types.h).
 */
#ifndef SOCKBOOST_HOST_ABI_H
#define SOCKBOOST_HOST_ABI_H

#include <linux/types.h>

/* The kernel's TASK_COMM_LEN: a process name as the kernel keeps it, at
 * most 15 bytes and a NUL ("qemu-system-x86_64" is "qemu-system-x86").
 */
#define SB_HOST_COMM_LEN 16

/* Which sockets the programs tune. */
enum sb_host_filter {
  SB_HOST_FILTER_PROGRAMS = 1,  /* made by a process named in "programs" */
  SB_HOST_FILTER_PORTS = 2,     /* TCP with a local or remote port in "ports" */
  SB_HOST_FILTER_ALL = 3,       /* every TCP and unix stream socket */
};

/* The parts of host mode, each loaded and attached on its own (a
 * kernel that refuses one keeps the others): their programs are named
 * in load.c.  A new part is a value here, its row there, and its judge
 * in the self-test (plan.c).
 */
enum sb_host_part {
  SB_HOST_PART_TCP_BIND,        /* TCP_NODELAY on listeners, at bind */
  SB_HOST_PART_TCP_CONNECT,     /* TCP_NODELAY on connections made */
  SB_HOST_PART_UNIX_CONNECT,    /* unix stream send buffers, at connect */
  SB_HOST_PART_UNIX_ACCEPT,     /* and of a server's accepted sockets, when
                                   it asks for their names */
  SB_HOST_NPARTS
};
#define SB_HOST_PART_BIT(p) (1u << (p))
#define SB_HOST_PARTS_TCP (SB_HOST_PART_BIT (SB_HOST_PART_TCP_BIND) | \
                           SB_HOST_PART_BIT (SB_HOST_PART_TCP_CONNECT))
#define SB_HOST_PARTS_UNIX (SB_HOST_PART_BIT (SB_HOST_PART_UNIX_CONNECT) | \
                            SB_HOST_PART_BIT (SB_HOST_PART_UNIX_ACCEPT))
#define SB_HOST_PART_WHY_LEN 200

/* The one entry of the "settings" array: written by enable before any
 * program is attached, read by the programs and by status.
 */
#define SB_HOST_CGROUP_PATH_LEN 256
struct sb_host_settings {
  __u32 filter;                 /* SB_HOST_FILTER_* */
  __u32 sndbuf;                 /* SO_SNDBUF request for unix streams; 0 off */
  __u32 sndbuf_granted;         /* what the request gets, as getsockopt
                                   reads it (doubled, clipped at wmem_max):
                                   a socket that has as much already is
                                   left alone, so none is ever lowered */
  __u32 wmem_max;               /* net.core.wmem_max when enabled, which
                                   the grant was measured under */
  __u32 task_group_leader;      /* where the running kernel keeps a
                                   task's group_leader and comm (byte
                                   offsets in struct task_struct, from its
                                   BTF): the programs read the process's
                                   name, its leader's, there; 0 for the
                                   calling thread's name instead */
  __u32 task_comm;
  __u32 observe;                /* 1: counting only (enable --observe):
                                   no tuning program is attached */
  __u32 parts;                  /* bit P: part P is on */
  __u32 tag_tcp;                /* 1: the TCP parts' hooks tag the sockets
                                   they take for the counting
                                   (stall-tags.bpf.h), which attaches no
                                   bind or connect hook of its own then */
  __u64 first_bytes[4];         /* bit B: a name in "programs" starts with
                                   byte B (most names are refused on it,
                                   before the trie is searched) */
  __u64 enabled_at;             /* CLOCK_REALTIME seconds */
  __u64 cgroup_id;              /* where the programs are attached */
  char cgroup[SB_HOST_CGROUP_PATH_LEN];  /* its path, for status; may be cut */
  char part_why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN];  /* why part P is
                                   off, in one line; "" when it is on */
  __u64 pin_dir_dev;            /* the pin directory of this generation:
                                   its device and inode (0 for the
                                   self-test's), and its path (may be
                                   cut), by which status and disable know
                                   it when its pins are not there */
  __u64 pin_dir_ino;
  char pin_dir[SB_HOST_CGROUP_PATH_LEN];
};

/* A key of the "programs" LPM trie, and its value: the entry of the
 * filter that a name matched.  An exact name is stored with its NUL
 * (prefixlen covers it), so "qemu-nbd" does not match "qemu-nbdx"; a
 * prefix ("qemu-system-*") without, so it matches every name that
 * starts with it.  Lookups use the whole comm (prefixlen 128).  The
 * entry "any" (prefixlen 0, no name) stands for every process, under
 * --all and --ports.
 */
struct sb_host_name_key {
  __u32 prefixlen;              /* bits of name that must match */
  char name[SB_HOST_COMM_LEN];
};

/* Flags of a socket's mark (sb_host_mark.flags). */
#define SB_HOST_MARK_NODELAY 2u /* host mode set TCP_NODELAY on it */
#define SB_HOST_MARK_SNDBUF 4u  /* host mode raised its send buffer */

/* The value of the "marks" socket storage: which process the socket was
 * tuned for and what host mode did to it.  Cloned from a listener into
 * the sockets it accepts.
 */
struct sb_host_mark {
  char comm[SB_HOST_COMM_LEN];
  __u32 flags;                  /* SB_HOST_MARK_* */
  __u32 unused;
};

/* A key of the "counts" hash: the filter entry that took the process
 * and the user it runs as (its real uid in the initial user namespace,
 * which it cannot choose), so that a user who renames processes at will
 * fills at most one row per entry.  Rows are never removed; the rows of
 * root and of SB_HOST_UID_OTHERS are made at enable for every entry,
 * and a user who finds the table full is counted in the latter.
 */
struct sb_host_count_key {
  struct sb_host_name_key entry;
  __u32 uid;                    /* or SB_HOST_UID_OTHERS */
};
#define SB_HOST_UID_OTHERS 0xffffffffu  /* (uid_t) -1 is no one's uid */

/* The value of the "counts" hash: what host mode did for the processes
 * of a row.  The stall counter (issue 33) extends it with counters of
 * its own: append fields, each a __u64 the programs add to atomically.
 */
struct sb_host_counts {
  __u64 tcp_bind;               /* TCP sockets bound (listeners), given
                                   TCP_NODELAY, which the connections
                                   they accept inherit */
  __u64 tcp_connect;            /* TCP connections made, given TCP_NODELAY */
  __u64 unix_sndbuf;            /* unix stream sockets given a bigger buffer */
  /* The counting (sockboost-stalls.bpf.c), tuning on or not: */
  __u64 stalls;                 /* round trips that waited for a delayed
                                   ACK (doc/host-stalls.md) */
  __u64 stall_us;               /* their time beyond the connection's
                                   shortest round trip, microseconds */
  __u64 bytes_sent;             /* TCP bytes sent and acknowledged */
  __u64 bytes_received;         /* TCP bytes received */
  __u64 connections;            /* TCP connections established */
  __u64 first_ns;               /* CLOCK_BOOTTIME of the row's first
                                   count of the above, or 0 */
};
enum sb_host_count {
  SB_HOST_COUNT_TCP_BIND,
  SB_HOST_COUNT_TCP_CONNECT,
  SB_HOST_COUNT_UNIX,
};

/* How many names and ports a filter may hold, and rows "counts" holds:
 * enough for the reserved rows of every entry and hundreds of users.
 */
#define SB_HOST_MAX_PROGRAMS 64
#define SB_HOST_MAX_PORTS 64
#define SB_HOST_MAX_COUNT_ROWS 1024

#endif /* SOCKBOOST_HOST_ABI_H */
