/* SPDX-License-Identifier: MIT */
/* Static, lock-free per-fd table: no allocation, safe in any hook. */
#include <stdatomic.h>

#include "fdtable.h"

_Atomic uint32_t sb_fd_table[SB_FD_MAX];

static int
in_range (int fd)
{
  return fd >= 0 && fd < SB_FD_MAX;
}

uint32_t
sb_fd_swap (int fd, uint32_t value)
{
  if (!in_range (fd))
    return 0;
  return atomic_exchange_explicit (&sb_fd_table[fd], value, memory_order_acq_rel);
}

int
sb_fd_update (int fd, uint32_t expected, uint32_t value)
{
  if (!in_range (fd))
    return 0;
  return atomic_compare_exchange_strong_explicit (&sb_fd_table[fd], &expected, value,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire);
}
