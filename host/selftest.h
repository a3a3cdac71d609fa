/* SPDX-License-Identifier: MIT */
/* enable's self-test: a copy of the programs attached to a private
 * child cgroup, and a process there, in a private network namespace,
 * that makes one TCP connection and one unix stream connection to
 * itself and reads what the kernel set on them.
 */
#ifndef SOCKBOOST_HOST_SELFTEST_H
#define SOCKBOOST_HOST_SELFTEST_H

#include <stddef.h>
#include <stdint.h>

#include "host-abi.h"

/* The self-test process's name, which its copy of the programs names,
 * and the name of its thread that makes the connections when the
 * programs read the process's name (its leader's), not the thread's.
 */
#define SB_HOST_SELFTEST_NAME "sockboost-test"
#define SB_HOST_SELFTEST_THREAD "sockboost-thr"

struct sb_host_selftest {
  int tcp_nodelay[2];           /* TCP_NODELAY of the client, the server */
  int unix_before;              /* SO_SNDBUF of a new unix stream socket */
  int unix_sndbuf[2];           /* SO_SNDBUF of the client, the server */
  struct sb_host_counts counts; /* what the programs counted */
  char problem[256];            /* what the process could not do, or "" */
  unsigned parts;               /* SB_HOST_PART_BIT of the parts it had
                                   loaded and attached */
  char part_why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN];  /* why not */
};

/* Run the self-test under the cgroup open at PARENT_FD with the PARTS
 * (SB_HOST_PART_BIT) the kernel takes of those asked for, each loaded
 * and attached on its own: the unix hooks with the request
 * BASE->sndbuf, the process's name read as BASE->task_* say.  Return 0
 * when it ran (R says which parts it had, and what happened), or -1
 * with WHY when not even the maps could be made.
 */
extern int sb_host_selftest (int parent_fd, const struct sb_host_settings *base,
                             unsigned parts, struct sb_host_selftest *r,
                             char *why, size_t why_len);

#endif /* SOCKBOOST_HOST_SELFTEST_H */
