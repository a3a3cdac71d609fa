/* SPDX-License-Identifier: MIT */
/* The sockets of another process, each taken through its pidfd
 * (pidfd_getfd), which names that very socket however the process
 * changes meanwhile; for status PID and for enable's adoption of the
 * listeners that were there before it.
 */
#ifndef SOCKBOOST_HOST_PROCSOCK_H
#define SOCKBOOST_HOST_PROCSOCK_H

#include <sys/types.h>

/* Call FN (ARG, FD, INODE, COPY) for each socket descriptor FD of
 * process PID, open at PIDFD (pidfd_open), with its inode and COPY, a
 * duplicate that FN may use and that is closed after it.  FN returns 1
 * to count the socket.  Returns the count, or -1 (errno) when the
 * process's descriptors cannot be listed.
 */
typedef int sb_host_socket_fn (void *arg, int fd, unsigned long long inode,
                               int copy);
extern int sb_host_each_socket (pid_t pid, int pidfd, sb_host_socket_fn *fn,
                                void *arg);

/* pidfd_open (PID, 0), or -1 (errno). */
extern int sb_host_pidfd_open (pid_t pid);

#endif /* SOCKBOOST_HOST_PROCSOCK_H */
