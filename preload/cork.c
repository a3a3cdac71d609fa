/* SPDX-License-Identifier: MIT */
/* Glue between the hooks and the framing tracker.  The tracker's slot is
 * locked only around pure framing calls, never across the system call, so
 * a thread blocked sending never holds up one receiving on the same socket.
 */
#include <sys/socket.h>

#include "config.h"
#include "cork.h"
#include "fdtable.h"
#include "log.h"
#include "slots.h"
#include "stats.h"
#include "track.h"
#include "tune.h"

/* Stop following FD (entry E): give its slot back; REASON is logged. */
static void
drop_slot (int fd, uint32_t e, const char *reason)
{
  uint32_t next = (e & ~SB_FD_SLOT_MASK) | SB_FD_NOFRAME;

  if (!(e & SB_FD_TUNED))
    next &= ~(uint32_t) SB_FD_CANDIDATE;   /* not NBD: never tuned */
  if (!sb_fd_update (fd, e, next))
    return;                     /* closed or replaced meanwhile */
  sb_slot_release (SB_FD_SLOT (e));
  /* scope=nbd meets many sockets that are not NBD: that is no news. */
  if (reason)
    sb_log ((e & SB_FD_TUNED) ? SB_LOG_INFO : SB_LOG_TRACE,
            "fd %d framing off: %s", fd, reason);
}

/* After the tracker of FD saw more bytes: tune a candidate that turned
 * out to speak NBD, or stop following a stream that is not NBD.
 */
static void
follow_up (int fd, uint32_t e, int seen, const char *off_reason)
{
  if ((e & SB_FD_CANDIDATE) && seen) {
    sb_tune_apply (fd, e);
    e = (e | SB_FD_TUNED) & ~(uint32_t) SB_FD_CANDIDATE;
    if ((e & SB_FD_UNIX) || !sb_config ()->cork)
      drop_slot (fd, e, NULL);
    else if (off_reason)
      drop_slot (fd, e, off_reason);
    return;
  }
  if (off_reason)
    drop_slot (fd, e, off_reason);
}

/* The program passed MSG_MORE on FD (entry E) itself: it corks its own
 * messages (libnbd, nbdkit), so from now on the library adds nothing
 * there, not even where the program left a flag out.  Returns the entry.
 */
static uint32_t
note_app_more (int fd, uint32_t e)
{
  while (!(e & SB_FD_APPMORE) && (e & SB_FD_KINDS)) {
    if (sb_fd_update (fd, e, e | SB_FD_APPMORE))
      return e | SB_FD_APPMORE;
    e = sb_fd_get (fd);
  }
  return e;
}

int
sb_cork_plan (int fd, const struct iovec *iov, int iovcnt, int flags,
              struct sb_send_plan *p)
{
  uint32_t e = sb_fd_get (fd);
  int slot;

  if ((flags & MSG_MORE) && (e & SB_FD_TCP) && !(e & SB_FD_APPMORE))
    e = note_app_more (fd, e);
  slot = SB_FD_SLOT (e);
  p->entry = e;
  p->more = 0;
  if (!(e & (SB_FD_TUNED | SB_FD_CANDIDATE)))
    return 0;
  if (slot >= 0 && (e & SB_FD_TCP) && (e & SB_FD_TUNED)
      && !(e & (SB_FD_APPCORK | SB_FD_APPMORE)) && !(flags & MSG_MORE)
      && sb_config ()->cork) {
    p->more = sb_framing_wants_more (sb_slot_lock (slot), iov, iovcnt);
    sb_slot_unlock (slot);
  }
  return 1;
}

void
sb_cork_sent (int fd, const struct sb_send_plan *p, const struct iovec *iov,
              int iovcnt, ssize_t r)
{
  uint32_t e = p->entry;
  int slot = SB_FD_SLOT (e), seen;
  const char *off = NULL;
  struct sb_framing *f;

  if (e & SB_FD_TUNED)
    sb_stats_count (fd, r, p->more);
  if (slot < 0 || r <= 0)
    return;
  f = sb_slot_lock (slot);
  sb_framing_sent (f, iov, iovcnt, (size_t) r);
  seen = sb_framing_nbd_seen (f);
  if (sb_framing_is_off (f))
    off = sb_framing_off_reason (f);
  sb_slot_unlock (slot);
  follow_up (fd, e, seen, off);
}

void
sb_cork_received (int fd, const struct iovec *iov, int iovcnt, ssize_t r,
                  int flags)
{
  uint32_t e;
  int slot;
  const char *off = NULL;
  struct sb_framing *f;

  if (r <= 0 || (flags & MSG_PEEK))
    return;
  e = sb_fd_get (fd);
  slot = SB_FD_SLOT (e);
  if (slot < 0)
    return;
  if (flags & MSG_TRUNC) {
    drop_slot (fd, e, "MSG_TRUNC discarded bytes unseen");
    return;
  }
  f = sb_slot_lock (slot);
  sb_framing_received (f, iov, iovcnt, (size_t) r);
  if (sb_framing_is_off (f))
    off = sb_framing_off_reason (f);
  sb_slot_unlock (slot);
  follow_up (fd, e, 0, off);
}

void
sb_cork_not_socket (int fd)
{
  sb_track_set (fd, 0);
}

void
sb_cork_app_cork (int fd, int on)
{
  uint32_t e;

  do {
    e = sb_fd_get (fd);
    if (!(e & SB_FD_KINDS))
      return;
  } while (!sb_fd_update (fd, e, on ? e | SB_FD_APPCORK
                                    : e & ~(uint32_t) SB_FD_APPCORK));
}
