/* SPDX-License-Identifier: MIT */
/* Counters in static arrays indexed by fd; relaxed atomics, touched only
 * when SOCKBOOST_STATS is on.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "fdtable.h"
#include "log.h"
#include "stats.h"

struct counters {
  _Atomic uint64_t bytes, calls, corked;
};

static struct counters counters[SB_FD_MAX];

void
sb_stats_count (int fd, ssize_t r, int corked)
{
  struct counters *c;

  if (fd < 0 || fd >= SB_FD_MAX || !sb_config ()->stats)
    return;
  c = &counters[fd];
  atomic_fetch_add_explicit (&c->calls, 1, memory_order_relaxed);
  if (r > 0)
    atomic_fetch_add_explicit (&c->bytes, (uint64_t) r, memory_order_relaxed);
  if (corked)
    atomic_fetch_add_explicit (&c->corked, 1, memory_order_relaxed);
}

void
sb_stats_flush (int fd)
{
  struct counters *c;
  uint64_t calls;

  if (fd < 0 || fd >= SB_FD_MAX || !sb_config ()->stats)
    return;
  c = &counters[fd];
  calls = atomic_exchange_explicit (&c->calls, 0, memory_order_relaxed);
  sb_log (SB_LOG_WARN, "fd %d stats: %llu bytes sent in %llu calls, "
          "%llu corked", fd,
          (unsigned long long) atomic_exchange (&c->bytes, 0),
          (unsigned long long) calls,
          (unsigned long long) atomic_exchange (&c->corked, 0));
}
