/* SPDX-License-Identifier: MIT */
/* Entry lifecycle.  Forgetting happens before the real close so that a
 * number reused at once by another thread never inherits our old state.
 * A vfork child runs in its parent's memory with descriptors of its own:
 * it closes (before exec) what stays open in the parent, so its hooks
 * must change nothing here.  It is told apart by its process id, asked
 * of the kernel only when a table entry would change (getpid is a system
 * call): the send and receive paths never ask.
 */
#include <stdatomic.h>
#include <unistd.h>

#include "fdtable.h"
#include "log.h"
#include "slots.h"
#include "stats.h"
#include "trace.h"
#include "track.h"

/* Release whatever the old entry ENTRY of FD held. */
static void
release (int fd, uint32_t entry)
{
  if (entry & SB_FD_TUNED)
    sb_stats_flush (fd);
  if (SB_FD_SLOT (entry) >= 0)
    sb_slot_release (SB_FD_SLOT (entry));
}

static _Atomic pid_t owner;

void
sb_track_adopt (void)
{
  atomic_store (&owner, getpid ());
}

pid_t
sb_track_owner (void)
{
  pid_t p = atomic_load_explicit (&owner, memory_order_relaxed);

  /* A hook run before the constructor (from another library's). */
  if (p == 0)
    p = getpid ();
  return p;
}

bool
sb_track_foreign (void)
{
  pid_t self = getpid (), unset = 0;

  /* A hook run before the constructor (from another library's) adopts. */
  if (atomic_compare_exchange_strong (&owner, &unset, self))
    return false;
  return self != unset;
}

void
sb_track_set (int fd, uint32_t entry)
{
  if (!sb_track_foreign ())
    release (fd, sb_fd_swap (fd, entry));
}

void
sb_track_report_all (void)
{
  for (int fd = 0; fd < SB_FD_MAX; fd++)
    if (sb_fd_get (fd) & SB_FD_TUNED)
      sb_stats_flush (fd);
}

/* Release FD's entry, saying so at level 3 if it was a socket we know. */
static void
forget (int fd, const char *call)
{
  uint32_t e = sb_fd_swap (fd, 0);

  if ((e & SB_FD_KINDS) && sb_tracing ())
    sb_log (SB_LOG_TRACE, "fd %d %s %s: forgotten", fd, sb_kind_name (e),
            call);
  release (fd, e);
}

/* The first tracked descriptor (or the log's) in LO..HI, or -1. */
static long
first_known (unsigned lo, unsigned hi)
{
  if (sb_log_fd_within (lo, hi))
    return lo;
  for (unsigned fd = lo; fd <= hi && fd < SB_FD_MAX; fd++)
    if (sb_fd_get ((int) fd))
      return fd;
  return -1;
}

void
sb_track_forget (unsigned lo, unsigned hi, const char *call)
{
  long from = first_known (lo, hi);

  if (from < 0 || sb_track_foreign ())
    return;
  sb_log_fds_gone (lo, hi);
  if (hi >= SB_FD_MAX)
    hi = SB_FD_MAX - 1;
  for (unsigned fd = (unsigned) from; fd <= hi; fd++)
    if (sb_fd_get ((int) fd))
      forget ((int) fd, call);
}
