/* SPDX-License-Identifier: MIT */
/* The self-test's own process (selftest-child.c). */
#ifndef SOCKBOOST_HOST_SELFTEST_CHILD_H
#define SOCKBOOST_HOST_SELFTEST_CHILD_H

#include "selftest.h"

/* In a new child: join the cgroup whose cgroup.procs is open at
 * PROCS_FD, test (unix too WITH_UNIX; from a thread named
 * SB_HOST_SELFTEST_THREAD when BY_THREAD), write a struct
 * sb_host_selftest to REPORT_FD, exit.
 */
extern void sb_host_selftest_child (int procs_fd, int report_fd,
                                    int with_unix, int by_thread)
  __attribute__ ((noreturn));

#endif /* SOCKBOOST_HOST_SELFTEST_CHILD_H */
