/* SPDX-License-Identifier: MIT */
/* SOCKBOOST_STATS=1: per tuned socket, bytes sent, send calls and calls
 * the library corked, printed when the socket closes or the process exits.
 */
#ifndef SOCKBOOST_STATS_H
#define SOCKBOOST_STATS_H

#include <sys/types.h>

/* Count one send call on FD that returned R, corked or not. */
extern void sb_stats_count (int fd, ssize_t r, int corked);

/* Print FD's line (if it sent anything) and reset its counters. */
extern void sb_stats_flush (int fd);

#endif /* SOCKBOOST_STATS_H */
