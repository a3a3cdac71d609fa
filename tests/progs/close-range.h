/* SPDX-License-Identifier: MIT */
/* close_range and closefrom for the test programs, where the C library
 * is older than glibc 2.34 (Debian 11) and has neither.  Raw system
 * calls then: what a program built there has to do, which the library
 * cannot see (and where it hooks neither, preload/real-symbols.h).
 * With a newer glibc, its own, which the library hooks.
 */
#ifndef SOCKBOOST_TESTS_CLOSE_RANGE_H
#define SOCKBOOST_TESTS_CLOSE_RANGE_H

#include <features.h>

#if !__GLIBC_PREREQ(2, 34)
#include <sys/syscall.h>
#include <unistd.h>

static inline int
close_range (unsigned lo, unsigned hi, int flags)
{
  return (int) syscall (SYS_close_range, lo, hi, flags);
}

static inline void
closefrom (int lowfd)
{
  (void) syscall (SYS_close_range, (unsigned) lowfd, ~0u, 0);
}
#endif

#endif /* SOCKBOOST_TESTS_CLOSE_RANGE_H */
