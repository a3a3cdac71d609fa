/* SPDX-License-Identifier: MIT */
/* The watcher's event loop: each event of the ring buffer handled at
 * once; a socket not found yet (an accepted one, before the process
 * takes it) looked for again a few times; each uid limited to a share of
 * the watcher's time; the cgroup swept again when events were lost.
 * Bounded in memory whatever the programs report.
 */
#ifndef SOCKBOOST_HOST_WATCH_LOOP_H
#define SOCKBOOST_HOST_WATCH_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "cgroup-procs.h"
#include "watch-budget.h"
#include "watch.h"

/* Sockets looked for again, at most; the oldest are given up first. */
#define SB_WATCH_MAX_PENDING 256
/* How long a socket is looked for after its event. */
#define SB_WATCH_PENDING_MS 5000
/* The processes one sweep goes through, at most. */
#define SB_WATCH_MAX_SWEPT 65536

struct sb_watch_pending {
  struct sb_watch_event e;
  uint64_t next_ns, deadline_ns;  /* CLOCK_MONOTONIC */
  uint32_t delay_ms;
};

struct sb_watch_loop {
  const struct sb_watch_maps *m;
  int cgroup_fd;
  int counts_fd;                /* the watch_counts array */
  uint64_t counts[SB_WATCH_NCOUNTS];  /* the watcher's own slots */
  uint64_t published[SB_WATCH_NCOUNTS];  /* as last written back */
  struct sb_watch_pending pending[SB_WATCH_MAX_PENDING];
  size_t npending;
  struct sb_watch_budgets budgets;
  uint64_t lost_seen;            /* events lost or dropped, when last seen */
  /* A sweep goes through the cgroup's processes as their users' budgets
   * allow: those before SWEEP_NEXT are done, the others wait.
   */
  struct sb_host_proc sweep[SB_WATCH_MAX_SWEPT];
  size_t sweep_n, sweep_next;
  int sweep_again;              /* another is asked for meanwhile */
  uint64_t sweep_due_ns;        /* 0: none due */
  uint64_t last_sweep_ns;
  /* When LEAVE_FD is readable, LEAVE (LEAVE_ARG) says whether to stop:
   * the watcher's generation may be gone.  LEAVE_FD -1: never.
   */
  int leave_fd;
  int (*leave) (void *arg);
  void *leave_arg;
};

/* Set L up for the maps M, the cgroup at CGROUP_FD and the counts array
 * at COUNTS_FD, whose slots it carries on from.
 */
extern void sb_watch_loop_init (struct sb_watch_loop *l,
                                const struct sb_watch_maps *m,
                                int cgroup_fd, int counts_fd);

/* Handle one event (the ring buffer's callback's work). */
extern void sb_watch_handle (struct sb_watch_loop *l,
                             const struct sb_watch_event *e, uint64_t now_ns);

/* Look again for the pending sockets that are due, sweep if one is due;
 * return the milliseconds until the next is due, or -1 for none.
 */
extern int sb_watch_due (struct sb_watch_loop *l, uint64_t now_ns);

/* Sweep the cgroup now: the processes whose users have time left at
 * once, the others as it comes (sb_watch_due).
 */
extern void sb_watch_sweep_now (struct sb_watch_loop *l);

/* Note the events the programs lost; a sweep follows. */
extern void sb_watch_note_lost (struct sb_watch_loop *l, uint64_t now_ns);

/* Write the watcher's slots back to the counts array. */
extern void sb_watch_publish (struct sb_watch_loop *l);

/* Read the ring buffer at EVENTS_FD until STOP_FD (a signalfd, or a
 * pipe) is readable or closed, or L's leave hook says so.  Return 0, or
 * -1 with WHY when the ring buffer fails.
 */
extern int sb_watch_run (struct sb_watch_loop *l, int events_fd, int stop_fd,
                         char *why, size_t why_len);

#endif /* SOCKBOOST_HOST_WATCH_LOOP_H */
