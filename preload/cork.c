/* SPDX-License-Identifier: MIT */
/* Glue between the hooks and the framing tracker.  A side of the tracker
 * is owned only around pure framing calls, never across the system call,
 * and is never waited for (slots.c says why): a hook that finds it owned
 * turns the tracker off for that socket and makes the plain call.
 */
#include <errno.h>
#include <sys/socket.h>

#include "config.h"
#include "cork.h"
#include "fdtable.h"
#include "log.h"
#include "slots.h"
#include "stats.h"
#include "trace.h"
#include "track.h"
#include "tune.h"

/* Stop following FD (entry E): give its slot back; REASON is logged. */
static void
drop_slot (int fd, uint32_t e, const char *reason)
{
  uint32_t next = (e & ~(SB_FD_SLOT_MASK | SB_FD_GEN_MASK)) | SB_FD_NOFRAME;

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

/* Why a send with FLAGS on a socket whose entry is E (tuned or a
 * candidate) cannot get MSG_MORE, or NULL if the framing decides.
 */
static const char *
why_not_corked (uint32_t e, int flags)
{
  if (e & SB_FD_CANDIDATE)
    return "passed through (no NBD handshake seen yet, scope nbd)";
  if (e & SB_FD_UNIX)
    return "passed through (unix: nothing to cork)";
  if (!sb_config ()->cork)
    return "passed through (SOCKBOOST_CORK is off)";
  if ((flags & MSG_MORE) || (e & SB_FD_APPMORE))
    return "passed through (the program passes MSG_MORE itself)";
  if (e & SB_FD_APPCORK)
    return "passed through (the program set TCP_CORK)";
  if (SB_FD_SLOT (e) < 0)
    return "passed through (NBD framing not followed)";
  return NULL;
}

/* A hook on FD (entry E) could not own the tracker's side: the order of
 * its bytes among another caller's is unknown, so the tracker stops.
 */
static void
lose (int fd, uint32_t e)
{
  sb_slot_abandon (SB_FD_SLOT (e), SB_FD_GEN (e), SB_FRAMING_OFF_BUSY);
  drop_slot (fd, e, "a call it could not follow (another thread or a "
             "signal handler was inside the tracker)");
}

/* What the trace says of a send that would end at END. */
static const char *
end_text (enum sb_framing_end end)
{
  switch (end) {
  case SB_FRAMING_END_HEADER: return "MSG_MORE added (after an NBD header)";
  case SB_FRAMING_END_INSIDE:
    return "passed through (inside an NBD message: only a header gets MSG_MORE)";
  case SB_FRAMING_END_BOUNDARY:
    return "passed through (at an NBD message boundary)";
  case SB_FRAMING_END_UNKNOWN:
    return "passed through (too many READ replies in one send to plan)";
  default: return "passed through (NBD framing off)";
  }
}

int
sb_cork_plan_plain (int fd, const char *call, int flags,
                    struct sb_send_plan *p)
{
  uint32_t e = sb_fd_get (fd);

  if ((flags & MSG_MORE) && (e & SB_FD_TCP) && !(e & SB_FD_APPMORE))
    e = note_app_more (fd, e);
  *p = (struct sb_send_plan) { .entry = e, .call = call };
  if (!(e & (SB_FD_TUNED | SB_FD_CANDIDATE)))
    return 0;
  p->why = why_not_corked (e, flags);
  return 1;
}

int
sb_cork_plan (int fd, const char *call, const struct iovec *iov, int iovcnt,
              int flags, struct sb_send_plan *p)
{
  struct sb_framing *f;
  uint32_t e;
  int slot;

  if (!sb_cork_plan_plain (fd, call, flags, p))
    return 0;
  if (p->why != NULL)
    return 1;
  e = p->entry;
  slot = SB_FD_SLOT (e);
  f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT);
  if (f == NULL) {
    lose (fd, e);
    p->why = "passed through (the tracker was in use: framing off)";
    return 1;
  }
  p->why = end_text (sb_framing_send_ends (f, iov, iovcnt));
  sb_slot_leave (slot, SB_SLOT_OUT);
  p->more = p->why == end_text (SB_FRAMING_END_HEADER);
  return 1;
}

static size_t
iov_bytes (const struct iovec *iov, int iovcnt)
{
  size_t n = 0;

  for (int i = 0; iov && i < iovcnt; i++)
    n += iov[i].iov_len;
  return n;
}

/* Feed the N bytes of IOV that went out to the tracker of FD (entry E). */
static void
feed_sent (int fd, uint32_t e, const struct iovec *iov, int iovcnt, size_t n)
{
  int slot = SB_FD_SLOT (e), seen;
  const char *off = NULL;
  struct sb_framing *f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT);

  if (f == NULL) {
    lose (fd, e);
    return;
  }
  if (iov)
    sb_framing_sent (f, iov, iovcnt, n);
  else
    sb_framing_unseen (f, true, n);
  if (sb_framing_needs_reads (f))
    sb_slot_attach_reads (slot, f);
  seen = sb_framing_nbd_seen (f);
  if (sb_framing_is_off (f))
    off = sb_framing_off_reason (f);
  sb_slot_leave (slot, SB_SLOT_OUT);
  follow_up (fd, e, seen, off);
}

void
sb_cork_sent (int fd, const struct sb_send_plan *p, const struct iovec *iov,
              int iovcnt, ssize_t r)
{
  uint32_t e = p->entry;

  if (sb_tracing ())
    sb_trace_io (fd, e, p->call, iov_bytes (iov, iovcnt), r, errno, p->why);
  if (e & SB_FD_TUNED)
    sb_stats_count (fd, r, p->more);
  if (SB_FD_SLOT (e) >= 0 && r > 0)
    feed_sent (fd, e, iov, iovcnt, (size_t) r);
}

/* FD's tracker is a client past its handshake: from now on its receive
 * hooks take the fast path.
 */
static void
note_no_input (int fd, uint32_t e)
{
  while ((e & SB_FD_KINDS) && !(e & SB_FD_NOINPUT)
         && !sb_fd_update (fd, e, e | SB_FD_NOINPUT))
    e = sb_fd_get (fd);
}

/* Feed the N bytes of IOV that came in to the tracker of FD (entry E). */
static void
feed_received (int fd, uint32_t e, const struct iovec *iov, int iovcnt,
               size_t n)
{
  int slot = SB_FD_SLOT (e);
  const char *off = NULL;
  struct sb_framing *f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_IN);
  bool input;

  if (f == NULL) {
    lose (fd, e);
    return;
  }
  if (iov)
    sb_framing_received (f, iov, iovcnt, n);
  else
    sb_framing_unseen (f, false, n);
  input = sb_framing_wants_input (f);
  if (sb_framing_is_off (f))
    off = sb_framing_off_reason (f);
  sb_slot_leave (slot, SB_SLOT_IN);
  if (off)
    follow_up (fd, e, 0, off);
  else if (!input)
    note_no_input (fd, e);
}

/* Receives matter to a tracker until its client's handshake is over. */
static bool
wants_input (uint32_t e)
{
  return SB_FD_SLOT (e) >= 0 && !(e & SB_FD_NOINPUT);
}

void
sb_cork_received (int fd, uint32_t e, const char *call,
                  const struct iovec *iov, int iovcnt, ssize_t r, int err,
                  int flags)
{
  int feed = r > 0 && !(flags & MSG_PEEK) && wants_input (e);

  if (sb_tracing ())
    sb_trace_call (fd, e, call, r, err, feed ? ((flags & MSG_TRUNC)
                   ? "MSG_TRUNC: NBD framing dropped" : "fed to the NBD framing")
                   : SB_FD_SLOT (e) >= 0 && r > 0 && !(flags & MSG_PEEK)
                   ? "passed through (a client's replies are not followed)"
                   : "passed through");
  if (!feed)
    return;
  if (flags & MSG_TRUNC) {
    drop_slot (fd, e, "MSG_TRUNC discarded bytes unseen");
    return;
  }
  feed_received (fd, e, iov, iovcnt, (size_t) r);
}

void
sb_cork_unseen (int fd, const char *call, bool sending, ssize_t r)
{
  uint32_t e = sb_fd_get (fd);

  if (sb_tracing () && (e & SB_FD_KINDS))
    sb_trace_call (fd, e, call, r, r < 0 ? errno : 0, SB_FD_SLOT (e) < 0
                   ? "passed through" : "bytes counted, not seen");
  if (sending && (e & SB_FD_TUNED))
    sb_stats_count (fd, r, 0);
  if (SB_FD_SLOT (e) < 0 || r <= 0)
    return;
  if (sending)
    feed_sent (fd, e, NULL, 0, (size_t) r);
  else if (wants_input (e))
    feed_received (fd, e, NULL, 0, (size_t) r);
}

void
sb_cork_not_socket (int fd, const char *call)
{
  uint32_t e = sb_fd_get (fd);

  if (sb_tracing () && (e & SB_FD_KINDS))
    sb_log (SB_LOG_TRACE, "fd %d %s %s: not a socket (ENOTSOCK): forgotten, "
            "plain call made", fd, sb_kind_name (e), call);
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
