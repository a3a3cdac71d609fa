/* SPDX-License-Identifier: MIT */
/* What the watch programs (sockboost-watch.bpf.c) and the watcher
 * (watch*.c) share: the layout of their own maps.  Included by both
 * sides, so only fixed-size kernel types.
 */
#ifndef SOCKBOOST_HOST_WATCH_ABI_H
#define SOCKBOOST_HOST_WATCH_ABI_H

#include <linux/types.h>

#include "host-abi.h"

/* What a socket that an event names went through. */
enum sb_watch_kind {
  SB_WATCH_BOUND = 1,           /* bound: a listener, before listen() */
  SB_WATCH_CONNECTED = 2,       /* connecting: a client */
  SB_WATCH_ACCEPTED = 3,        /* established from a listener the watcher
                                   had not tuned yet: the loser's case */
};

/* One record of the "events" ring buffer. */
struct sb_watch_event {
  __u64 cookie;                 /* the socket's cookie (SO_COOKIE) */
  __u32 tgid;                   /* the process that bound or connected it;
                                   for SB_WATCH_ACCEPTED, the one that bound
                                   its listener */
  __u32 uid;                    /* that process's uid (init namespace) */
  __u32 kind;                   /* enum sb_watch_kind */
  __u32 unused;
  char comm[SB_HOST_COMM_LEN];  /* that process's name, zero-padded */
};

/* The value of the "watch_marks" socket storage, left on each socket
 * the bind hooks report and cloned into the sockets a listener accepts.
 */
struct sb_watch_mark {
  __u32 tgid;                   /* as in the event */
  __u32 uid;
  __u32 tuned;                  /* the watcher gave this listener
                                   TCP_NODELAY, which the sockets it
                                   accepts from now on inherit */
  __u32 unused;
  char comm[SB_HOST_COMM_LEN];
};

/* The ring buffer's size: a power of two, a multiple of the page size;
 * a record takes 48 bytes with its header, so about 1,300 events wait
 * there at most.  A full buffer loses events (counted); the watcher then
 * sweeps the cgroup.
 */
#define SB_WATCH_RING_BYTES (64 * 1024)

/* Events each uid may send, a second, and at once: the programs drop the
 * rest (counted), so that one user's processes binding in a loop can
 * neither fill the ring buffer for the others nor keep the watcher busy.
 * What is dropped is found by the sweep that follows.
 */
#define SB_WATCH_EVENTS_PER_SECOND 256
#define SB_WATCH_EVENTS_AT_ONCE 256

/* The value of the "watch_rates" LRU hash, keyed by uid. */
struct sb_watch_rate {
  __u64 at_ns;                  /* when last refilled (bpf_ktime_get_ns) */
  __u64 events;                 /* events it may still send */
};
#define SB_WATCH_MAX_RATES 1024

/* The slots of the "watch_counts" array: the programs count in the
 * first two, the watcher in the others.  enable pins it in the generation
 * that the watcher serves ("watch"): it says that the watcher is that
 * generation's TCP part, and which process it is.
 */
enum sb_watch_count {
  SB_WATCH_COUNT_LOST,          /* events the ring buffer had no room for */
  SB_WATCH_COUNT_LIMITED,       /* events dropped: their uid had sent its
                                   SB_WATCH_EVENTS_PER_SECOND */
  SB_WATCH_COUNT_PID,           /* the watcher's pid, 0 when it stopped */
  SB_WATCH_COUNT_STARTED,       /* when it started, CLOCK_REALTIME seconds */
  SB_WATCH_COUNT_EVENTS,        /* events read */
  SB_WATCH_COUNT_SET,           /* sockets given TCP_NODELAY on an event */
  SB_WATCH_COUNT_LATE,          /* of those, found on a retry: accepted
                                   sockets, reported before the process
                                   took them */
  SB_WATCH_COUNT_WAS_SET,       /* sockets that had it already */
  SB_WATCH_COUNT_GIVEN_UP,      /* sockets not found in time (closed, or
                                   taken by another process) */
  SB_WATCH_COUNT_THROTTLED,     /* events dropped: their uid had used its
                                   share of the watcher's time */
  SB_WATCH_COUNT_SWEPT,         /* sockets given TCP_NODELAY by a sweep of
                                   the cgroup (at start, after losses) */
  SB_WATCH_NCOUNTS
};

#endif /* SOCKBOOST_HOST_WATCH_ABI_H */
