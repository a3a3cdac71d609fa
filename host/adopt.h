/* SPDX-License-Identifier: MIT */
/* enable's adoption of what was there before it: the TCP listeners of
 * the processes of the cgroup that the filter takes get TCP_NODELAY now,
 * as a listener bound from now on gets it from the bind hooks, so that
 * the connections they accept from now on are tuned too.  Connections
 * made before are left as they are (sockboost attach tunes those).
 */
#ifndef SOCKBOOST_HOST_ADOPT_H
#define SOCKBOOST_HOST_ADOPT_H

#include "host-abi.h"
#include "load.h"

struct sb_host_adopted {
  int processes;                /* processes of the cgroup looked at */
  int listeners;                /* listeners given TCP_NODELAY */
  int cut;                      /* the adoption stopped at its bounds */
  int refused;                  /* processes left alone: a copy of their
                                   sockets would change their class */
  char refused_why[768];        /* "process PID: why", of the first */
};

/* What enable looks at, at most, while it holds the pin directory's
 * lock: processes of the cgroup's tree, and sockets of theirs in all.
 * Users choose how many of both they make; the rest are left as they
 * are (sockboost attach tunes them).
 */
#define SB_HOST_ADOPT_MAX_PROCESSES 4096
#define SB_HOST_ADOPT_MAX_SOCKETS 65536

/* Adopt the listeners of the processes in the cgroup open at CGROUP_FD
 * and its descendants, by the settings S and the maps of IN (loaded and
 * attached), within the bounds above; count them in A.  Best effort: a
 * process that goes away or may not be looked at is skipped, and so is
 * one whose sockets cannot be copied without changing their net_cls or
 * net_prio class (common/net-class.h; counted, said).
 */
extern void sb_host_adopt (int cgroup_fd, const struct sb_host_instance *in,
                           const struct sb_host_settings *s,
                           struct sb_host_adopted *a);

#endif /* SOCKBOOST_HOST_ADOPT_H */
