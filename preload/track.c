/* SPDX-License-Identifier: MIT */
/* Entry lifecycle.  Forgetting happens before the real close so that a
 * number reused at once by another thread never inherits our old state.
 */
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

void
sb_track_set (int fd, uint32_t entry)
{
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

void
sb_track_forget (unsigned lo, unsigned hi, const char *call)
{
  sb_log_fds_gone (lo, hi);
  if (hi >= SB_FD_MAX)
    hi = SB_FD_MAX - 1;
  for (unsigned fd = lo; fd <= hi && lo < SB_FD_MAX; fd++)
    if (sb_fd_get ((int) fd))
      forget ((int) fd, call);
}
