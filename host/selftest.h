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
};

/* Run the self-test under the cgroup open at PARENT_FD: TCP, and the
 * unix hooks with the request BASE->sndbuf when WITH_UNIX, the process's
 * name read as BASE->task_* say.  Return 0 when it ran (R says what
 * happened), or -1 with WHY when the programs could not even be loaded
 * or attached.
 */
extern int sb_host_selftest (int parent_fd, const struct sb_host_settings *base,
                             int with_unix, struct sb_host_selftest *r,
                             char *why, size_t why_len);

#endif /* SOCKBOOST_HOST_SELFTEST_H */
