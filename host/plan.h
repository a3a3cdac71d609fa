/* SPDX-License-Identifier: MIT */
/* What enable and check find out before anything is attached: the
 * cgroup, and what this kernel can do there (the self-test).
 */
#ifndef SOCKBOOST_HOST_PLAN_H
#define SOCKBOOST_HOST_PLAN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "host-abi.h"
#include "host.h"

struct sb_host_plan {
  char mount[PATH_MAX];         /* the cgroup2 file system */
  char cgroup[PATH_MAX];        /* the cgroup to attach to */
  int cgroup_fd;
  uint64_t cgroup_id;
  unsigned parts;               /* SB_HOST_PART_BIT of the parts that
                                   passed the self-test and are wanted */
  char part_why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN];  /* why each
                                   other part is off */
  int tcp_by_watcher;           /* TCP_NODELAY set by the watcher (watch.h),
                                   not by the kernel's TCP hooks */
  char tcp_why[512];            /* why not by the kernel's, then */
  int unix_granted;             /* SO_SNDBUF the self-test's socket got */
  long wmem_max;                /* net.core.wmem_max it got it under */
  uint32_t task_group_leader;   /* where the programs read a process's */
  uint32_t task_comm;           /* name (sb_host_settings); 0: the thread's */
  char names_why[1024];         /* why the thread's name, then */
};

/* Whether PL turns part P on. */
static inline int
sb_host_plan_has (const struct sb_host_plan *pl, enum sb_host_part p)
{
  return (pl->parts & SB_HOST_PART_BIT (p)) != 0;
}

/* Whether it turns a unix part on. */
static inline int
sb_host_plan_unix (const struct sb_host_plan *pl)
{
  return (pl->parts & SB_HOST_PARTS_UNIX) != 0;
}

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

/* How the programs tell which program a process is: its own name, or,
 * where they cannot read it, the name of the thread that makes the call
 * (NAMES_WHY says why).
 */
#define SB_HOST_NAMES_PROCESS "a process is taken by its own name (its " \
  "main thread's, as /proc/PID/comm shows it), whatever its threads are " \
  "called"
#define SB_HOST_NAMES_THREAD "a process is taken by the name of the " \
  "thread that binds or connects, not its own (a thread of QEMU named " \
  "nbd-connect is not taken)"

/* The line that follows "host mode cannot run here": what works
 * without it.
 */
#define SB_HOST_INSTEAD "without it, tune libvirt domains with 'sockboost " \
  "libvirt enable DOMAIN' (at their next start) or running processes " \
  "with 'sockboost attach --watch PID...'"

#endif /* SOCKBOOST_HOST_PLAN_H */
