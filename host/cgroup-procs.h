/* SPDX-License-Identifier: MIT */
/* The processes of a cgroup tree that host mode's filter takes, for
 * what is done to them from outside (the watcher's sweep).  A process is
 * matched by its name through the filter's own maps, as the kernel
 * programs match it: the rule is in the maps, not here.  Nothing is run
 * and nothing is opened by a name that another user chose: the cgroup's
 * process lists, /proc/PID/comm, and the process's pidfd.
 */
#ifndef SOCKBOOST_HOST_CGROUP_PROCS_H
#define SOCKBOOST_HOST_CGROUP_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host-abi.h"

/* Whether the filter of S (its programs in the map at PROGRAMS_FD)
 * takes the program named COMM (zero-padded, as the kernel keeps it);
 * *ENTRY is set to the entry that took it ("any" but for --programs).
 */
extern int sb_host_program_taken (const struct sb_host_settings *s,
                                  int programs_fd,
                                  const char comm[SB_HOST_COMM_LEN],
                                  struct sb_host_name_key *entry);

/* A process of a cgroup, and the user it runs as (its /proc
 * directory's owner).
 */
struct sb_host_proc {
  pid_t pid;
  uint32_t uid;
};

/* The processes of the cgroup open at CGROUP_FD and of its descendants
 * (to a bounded depth, and at most 65536 cgroups): at most MAX into
 * PROCS; return how many.
 */
extern size_t sb_host_cgroup_procs (int cgroup_fd, struct sb_host_proc *procs,
                                    size_t max);

/* If the filter takes process PID, call FN (ARG, PID, PIDFD, COMM) with
 * PIDFD naming it and COMM its name, read while it was alive, and
 * return 1; else 0 (also when it went away or may not be looked at).
 */
typedef void sb_host_process_fn (void *arg, pid_t pid, int pidfd,
                                 const char comm[SB_HOST_COMM_LEN]);
extern int sb_host_take_process (pid_t pid, const struct sb_host_settings *s,
                                 int programs_fd, sb_host_process_fn *fn,
                                 void *arg);

#endif /* SOCKBOOST_HOST_CGROUP_PROCS_H */
