/* SPDX-License-Identifier: MIT */
/* Copies of another process's sockets taken from its own cgroup v1
 * net_cls and net_prio cgroups.  A copy (pidfd_getfd(2), like a socket
 * received with SCM_RIGHTS) goes through the kernel's __receive_sock:
 * the socket takes, for good, the net_cls classid and the net_prio index
 * of the process that takes the copy.  On a host whose traffic is
 * classified by those v1 controllers (tc's cgroup classifier,
 * bpf_skb_cgroup_classid, net_prio's ifpriomap), a copy taken from
 * root's cgroup would move the process's socket to root's class.  So
 * the walk of another process's sockets (proc-sockets.c) first joins
 * that process's cgroups of those hierarchies, where they are not ours,
 * and comes back after; where it cannot, it takes no copy at all.
 *
 * This whole process moves (cgroup.procs), only in hierarchies of
 * net_cls and net_prio alone (one shared with another controller would
 * also move us under its limits, a freezer's included), and the kernel
 * gives every socket of ours the class of the cgroup joined, then ours
 * again when we come back.  Without such hierarchies, or with the
 * process in our own cgroups, nothing moves: /proc/PID/cgroup is read
 * and that is all.
 */
#ifndef SOCKBOOST_NET_CLASS_H
#define SOCKBOOST_NET_CLASS_H

#include <stddef.h>
#include <sys/types.h>

/* The hierarchies that have net_cls or net_prio: two at most. */
#define SB_NET_CLASS_HIERARCHIES 2

/* Where we were before a walk joined another process's cgroups. */
struct sb_net_class_trip {
  int n;                        /* hierarchies we may have left; 0: none */
  int home[SB_NET_CLASS_HIERARCHIES];   /* our cgroup.procs in each */
  int classed;                  /* the process was in such hierarchies */
};
#define SB_NET_CLASS_TRIP_INIT { 0, { -1, -1 }, 0 }

/* Join process PID's net_cls and net_prio cgroups where they are not
 * ours (T, from SB_NET_CLASS_TRIP_INIT, remembers ours).  Returns 0 when
 * nothing had to move (a process gone has no class to keep), 1 when we
 * moved into them, or -1: errno EXDEV when they cannot be joined (WHY,
 * SIZE bytes, says why: then no copy may be taken), another when its
 * cgroups cannot be read.  Called again after the copies, 1 means that
 * the process had moved meanwhile: copies taken again give its sockets
 * its new class.
 */
extern int sb_net_class_join (pid_t pid, struct sb_net_class_trip *t,
                              char *why, size_t size);

/* Back to our own cgroups, if T left them. */
extern void sb_net_class_leave (struct sb_net_class_trip *t);

#endif /* SOCKBOOST_NET_CLASS_H */
