/* SPDX-License-Identifier: MIT */
/* Hooks that end a descriptor's life: the table forgets the entry (and
 * the log forgets its file) before the real call, so a number reused at
 * once by another thread starts clean.
 */
#include <errno.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "real.h"
#include "track.h"

static int
sb_close (int fd)
{
  if (fd >= 0)
    sb_track_forget ((unsigned) fd, (unsigned) fd, "close");
  return SB_REAL_CALL (close, fd);
}

static int
sb_dup2 (int oldfd, int newfd)
{
  if (newfd >= 0 && newfd != oldfd)
    sb_track_forget ((unsigned) newfd, (unsigned) newfd, "dup2");
  return SB_REAL_CALL (dup2, oldfd, newfd);
}

static int
sb_dup3 (int oldfd, int newfd, int flags)
{
  if (newfd >= 0 && newfd != oldfd)
    sb_track_forget ((unsigned) newfd, (unsigned) newfd, "dup3");
  return SB_REAL_CALL (dup3, oldfd, newfd, flags);
}

#if SB_HOOKS_CLOSE_RANGE
static int
sb_close_range (unsigned lo, unsigned hi, int flags)
{
  /* CLOSE_RANGE_CLOEXEC only marks the descriptors; they stay open. */
  if (!(flags & CLOSE_RANGE_CLOEXEC) && lo <= hi)
    sb_track_forget (lo, hi, "close_range");
  return SB_REAL_CALL (close_range, lo, hi, flags);
}

/* glibc's closefrom closes through the close_range system call, which
 * the close_range hook never sees.  Without a libc closefrom to call (a
 * program linked against one runs where there is one), the system call.
 */
static void
sb_closefrom (int lowfd)
{
  unsigned lo = lowfd < 0 ? 0 : (unsigned) lowfd;

  sb_track_forget (lo, ~0u, "closefrom");
  sb_real_ready ();
  if (sb_real.closefrom)
    sb_real.closefrom (lowfd);
  else
    (void) syscall (SYS_close_range, lo, ~0u, 0);
}
#endif

SB_EXPORT int
close (int fd)
{
  return sb_close (fd);
}

SB_EXPORT int
dup2 (int oldfd, int newfd)
{
  return sb_dup2 (oldfd, newfd);
}

SB_EXPORT int
dup3 (int oldfd, int newfd, int flags)
{
  return sb_dup3 (oldfd, newfd, flags);
}

#if SB_HOOKS_CLOSE_RANGE
SB_EXPORT int
close_range (unsigned lo, unsigned hi, int flags)
{
  return sb_close_range (lo, hi, flags);
}

SB_EXPORT void
closefrom (int lowfd)
{
  sb_closefrom (lowfd);
}
#endif
