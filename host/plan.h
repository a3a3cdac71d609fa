/* SPDX-License-Identifier: MIT */
/* What enable and check find out before anything is attached: the
 * cgroup, and what this kernel can do there (the self-test).
 */
#ifndef SOCKBOOST_HOST_PLAN_H
#define SOCKBOOST_HOST_PLAN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

struct sb_host_plan {
  char mount[PATH_MAX];         /* the cgroup2 file system */
  char cgroup[PATH_MAX];        /* the cgroup to attach to */
  int cgroup_fd;
  uint64_t cgroup_id;
  int tcp_by_watcher;           /* TCP_NODELAY set by the watcher (watch.h),
                                   not by the kernel's TCP hooks */
  char tcp_why[512];            /* why not by the kernel's, then */
  int with_unix;                /* the unix hooks work and are wanted */
  char unix_why[512];           /* why not, when they are wanted */
  int unix_granted;             /* SO_SNDBUF the self-test's socket got */
  long wmem_max;                /* net.core.wmem_max it got it under */
};

/* How sb_host_plan_make failed. */
enum sb_host_plan_failure {
  SB_HOST_PLAN_UNAVAILABLE = -1,  /* host mode cannot run here */
  SB_HOST_PLAN_ERROR = -2,        /* a bad --cgroup, say */
};

/* Find the cgroup of O and run the self-test there.  Return 0, or an
 * enum sb_host_plan_failure with WHY.  Close with sb_host_plan_close.
 */
extern int sb_host_plan_make (const struct sb_host_options *o,
                              struct sb_host_plan *pl,
                              char *why, size_t why_len);
extern void sb_host_plan_close (struct sb_host_plan *pl);

/* The line that follows "host mode cannot run here": what works
 * without it.
 */
#define SB_HOST_INSTEAD "without it, tune libvirt domains with 'sockboost " \
  "libvirt enable DOMAIN' (at their next start) or running processes " \
  "with 'sockboost attach --watch PID...'"

#endif /* SOCKBOOST_HOST_PLAN_H */
