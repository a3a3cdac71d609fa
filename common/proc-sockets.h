/* SPDX-License-Identifier: MIT */
/* The sockets of another process, for the tools that look at them or
 * tune them from outside (sockboost attach, host mode's adoption and
 * status PID): /proc/PID/fd lists them, and each is taken through the
 * process's pidfd (pidfd_getfd(2)), a copy of that very socket however
 * the process changes meanwhile, from the process's own net_cls and
 * net_prio cgroups, so that it keeps its class.  Links in /proc/PID/fd
 * are read for their socket inodes only, never followed.
 */
#ifndef SOCKBOOST_PROC_SOCKETS_H
#define SOCKBOOST_PROC_SOCKETS_H

#include <sys/types.h>

/* pidfd_open (PID, 0): a descriptor that names process PID until it
 * dies.  Returns it, or -1 (errno; ENOSYS before Linux 5.3).
 */
extern int sb_pidfd_open (pid_t pid);

/* What a walk does with each descriptor of the process that /proc lists
 * as a socket.  Each callback returns 0 to go on, or a positive value
 * that stops the walk and is its result.
 */
struct sb_socket_walk {
  /* Descriptor FD was listed as socket INODE: 0 to take a copy of it
   * (taken or failed follows), SB_WALK_PASS to pass it by, or a
   * value that stops the walk.  NULL: take every one.
   */
  int (*listed) (void *arg, int fd, unsigned long long inode);
  /* COPY, our copy of FD, is a socket of INODE (the copy's own: FD may
   * have been reused since it was listed); it is closed after.
   */
  int (*taken) (void *arg, int fd, unsigned long long inode, int copy);
  /* pidfd_getfd of FD failed with ERR (EBADF: FD was closed since it
   * was listed).  NULL: go on.
   */
  int (*failed) (void *arg, int fd, int err);
  void *arg;
};
#define SB_WALK_PASS (-2)

/* Walk the sockets of process PID, open at PIDFD, as W says, with the
 * copies taken from its own net_cls and net_prio cgroups (net-class.h).
 * Returns 0 when every descriptor was seen, the value a callback stopped
 * it with, or -1 (errno) when /proc/PID/fd cannot be read (ENOENT: the
 * process is gone; EACCES: it is not ours to look at), or EXDEV when no
 * copy may be taken: one would change the sockets' class.
 */
extern int sb_walk_sockets (pid_t pid, int pidfd,
                            const struct sb_socket_walk *w);

/* Whether the sockets of process PID may be copied now, as a walk
 * would take them: 0, or -1 (errno as sb_walk_sockets: EXDEV when a copy
 * would change their class).  Nothing is copied.
 */
extern int sb_walk_check (pid_t pid);

/* What errno ERR of a walk means, as text: for EXDEV, why the last walk
 * of this thread took no copy; else strerror's.
 */
extern const char *sb_walk_error (int err);

/* The simple walk: FN (ARG, FD, INODE, COPY) for each socket taken, as
 * W.taken without a result; FN returns 1 to count the socket.  Sockets
 * that cannot be taken are passed by.  Returns the count, or -1
 * (errno) as sb_walk_sockets.
 */
typedef int sb_socket_fn (void *arg, int fd, unsigned long long inode,
                          int copy);
extern int sb_each_socket (pid_t pid, int pidfd, sb_socket_fn *fn,
                           void *arg);

#endif /* SOCKBOOST_PROC_SOCKETS_H */
