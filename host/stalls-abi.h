/* SPDX-License-Identifier: MIT */
/* What the counting programs (sockboost-stalls.bpf.c) and sb-host share:
 * the layout of their own maps; their counts per program are in host
 * mode's "counts" rows (host-abi.h).  Included by both sides, so only
 * fixed-size kernel types.  Why a stall is counted so:
 * doc/host-stalls.md.
 */
#ifndef SOCKBOOST_HOST_STALLS_ABI_H
#define SOCKBOOST_HOST_STALLS_ABI_H

#include <linux/types.h>

#include "host-abi.h"

/* A round trip this much longer than the connection's shortest one is a
 * stall: a delayed ACK waits 40 ms at least (TCP_DELACK_MIN), and
 * nothing else TCP does on a LAN or on loopback waits that long.
 */
#define SB_STALLS_THRESHOLD_US 30000

/* Bytes a connection moves before they are added to its rows (and at
 * close, and with a stall): the rows are written about once a MiB, not
 * on every ACK.
 */
#define SB_STALLS_BYTES_BATCH (1024 * 1024)

/* The value of the "stall_tags" socket storage: whose socket it is, left
 * by the bind and connect hooks in the process's own context and cloned
 * into the sockets a tagged listener accepts; and what this connection
 * counted so far.
 */
struct sb_stalls_tag {
  struct sb_host_name_key entry;  /* the filter entry that took it */
  __u32 tgid;                   /* the process that bound or connected it */
  __u32 uid;                    /* its real uid (initial namespace) */
  char comm[SB_HOST_COMM_LEN];  /* its name, zero-padded */
  __u32 prev_srtt;              /* srtt_us (8 x) before the last sample */
  __u32 has_prev;               /* prev_srtt holds one */
  __u64 acked;                  /* bytes_acked already counted */
  __u64 received;               /* bytes_received already counted */
};

/* A row of the "stall_processes" hash, keyed by the process's pid
 * (__u32): kept while the process lives (status removes the rows of
 * processes gone, whose counts stay in their program's row).  A full
 * table loses a process's own row, never its program's counts.
 */
struct sb_stalls_process {
  struct sb_host_name_key entry;
  char comm[SB_HOST_COMM_LEN];
  __u32 uid;
  __u32 unused;
  struct sb_host_counts counts; /* the counting's fields only */
};

#define SB_STALLS_MAX_PROCESS_ROWS 4096

#endif /* SOCKBOOST_HOST_STALLS_ABI_H */
