/* SPDX-License-Identifier: MIT */
/* The watcher's self-test, which enable runs where the kernel's own TCP
 * part cannot work: the watch programs on a private child cgroup, a
 * process there in a private network namespace that listens, connects
 * to itself and reads TCP_NODELAY on its three sockets, and this process
 * acting as the watcher meanwhile.
 */
#ifndef SOCKBOOST_HOST_WATCH_SELFTEST_H
#define SOCKBOOST_HOST_WATCH_SELFTEST_H

#include <stddef.h>
#include <stdint.h>

#include "watch-abi.h"

struct sb_watch_selftest {
  int nodelay[3];               /* TCP_NODELAY of the listener, the client
                                   and the accepted socket */
  char problem[256];            /* what the process could not do, or "" */
  uint64_t counts[SB_WATCH_NCOUNTS];  /* what the watcher counted */
};

/* Run it under the cgroup open at PARENT_FD, with the offsets of BASE
 * for reading a process's name: where they are set, the sockets are made
 * by a thread of another name, so that only the leader's name, read
 * there, takes them.  Return 0 when it ran (R says what happened), or -1
 * with WHY when the programs could not be loaded or attached.
 */
struct sb_host_settings;
extern int sb_watch_selftest (int parent_fd, const struct sb_host_settings *base,
                              struct sb_watch_selftest *r,
                              char *why, size_t why_len);

/* Whether R shows the watcher at work; if not, WHY says what it saw. */
extern int sb_watch_selftest_passed (const struct sb_watch_selftest *r,
                                     char *why, size_t why_len);

#endif /* SOCKBOOST_HOST_WATCH_SELFTEST_H */
