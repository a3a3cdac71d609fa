/* SPDX-License-Identifier: MIT */
/* The watcher: host mode's TCP part where the kernel's BPF cannot set
 * TCP_NODELAY (before Linux 6.1).  Its kernel programs
 * (sockboost-watch.bpf.c) report each TCP socket that a program of the
 * cgroup the filter takes binds or connects; the watcher, a process of
 * its own (`sb-host watch`), finds that socket among the process's
 * descriptors by its cookie (pidfd_getfd, SO_COOKIE) and sets
 * TCP_NODELAY on it, as the process could itself.  Its programs are
 * attached through links only it holds: they go when it goes.
 */
#ifndef SOCKBOOST_HOST_WATCH_H
#define SOCKBOOST_HOST_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host-abi.h"
#include "watch-abi.h"

/* CLOCK_MONOTONIC in nanoseconds: the clock of the watcher's deadlines
 * and budgets (watch-loop.c).
 */
extern uint64_t sb_watch_now_ns (void);

/* ---- watch-tune.c: one socket of another process ------------------- */

/* The maps a tuned socket is recorded in, each -1 when absent. */
struct sb_watch_maps {
  int watch_marks;              /* the watch programs' marks */
  int marks;                    /* host mode's marks (status PID) */
  int counts;                   /* host mode's counts */
  int programs;                 /* host mode's filter, for a sweep */
  int ports;
  struct sb_host_settings settings;
};

enum sb_watch_outcome {
  SB_WATCH_SET,                 /* TCP_NODELAY set */
  SB_WATCH_WAS_SET,             /* it was on already */
  SB_WATCH_ABSENT,              /* not among the process's descriptors
                                   (yet: an accepted socket appears when
                                   the process accepts it) */
  SB_WATCH_NO_PROCESS,          /* the process is gone, or may not be
                                   looked at */
};

/* The sockets of one process looked at for one event, at most: a
 * process cannot make the watcher search without end.
 */
#define SB_WATCH_MAX_LOOKS 16384

/* Find the socket of event E among the descriptors of process E->tgid
 * (the first SB_WATCH_MAX_LOOKS sockets) and set TCP_NODELAY on it;
 * record it in M.  *LOOKED counts the sockets looked at.
 */
extern enum sb_watch_outcome sb_watch_tune (const struct sb_watch_maps *m,
                                            const struct sb_watch_event *e,
                                            unsigned *looked);

/* Tune what no event reported: the TCP sockets, listening or connected,
 * of process PID of user UID, if the filter in M takes it (the first
 * SB_WATCH_MAX_LOOKS sockets).  Return how many got TCP_NODELAY; *LOOKED
 * counts the sockets looked at.
 */
extern unsigned sb_watch_tune_process (const struct sb_watch_maps *m,
                                       pid_t pid, uint32_t uid,
                                       unsigned *looked);

#endif /* SOCKBOOST_HOST_WATCH_H */
