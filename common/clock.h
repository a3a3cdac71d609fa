/* SPDX-License-Identifier: MIT */
/* Time as the programs measure it: the monotonic clock, and the CPU
 * times of getrusage, as plain numbers.
 */
#ifndef SOCKBOOST_CLOCK_H
#define SOCKBOOST_CLOCK_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline double
sb_monotonic_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static inline uint64_t
sb_monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static inline double
sb_timeval_seconds (struct timeval tv)
{
  return (double) tv.tv_sec + (double) tv.tv_usec / 1e6;
}

#endif /* SOCKBOOST_CLOCK_H */
