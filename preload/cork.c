/* SPDX-License-Identifier: MIT */
/* Glue between the hooks and the framing tracker.  A side of the tracker
 * is owned only around pure framing calls, never across the system call,
 * and is never waited for (slots.c says why): a hook that finds it owned
 * turns the tracker off for that socket and makes the plain call.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "cork.h"
#include "fdtable.h"
#include "log.h"
#include "real.h"
#include "slots.h"
#include "stats.h"
#include "trace.h"
#include "track.h"
#include "tune.h"

/* Let go of the header the library's MSG_MORE holds on FD (entry E),
 * as if it had gone out plainly, when the program's call WHY makes the
 * kernel send nothing that would push it: the header would wait for
 * the kernel's 200 ms cork timer where plainly it left at once.
 * Unsetting TCP_CORK (which the program has not set: the library corks
 * nothing then) pushes what is queued and changes no option.
 */
static void
let_go (int fd, uint32_t e, const char *why)
{
  int slot = SB_FD_SLOT (e), off = 0, saved = errno;
  struct sb_framing *f;
  bool held;

  if (slot < 0 || (f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT))
      == NULL)
    return;
  held = f->out_held;
  f->out_held = false;
  sb_slot_leave (slot, SB_SLOT_OUT);
  if (!held || (e & SB_FD_APPCORK))
    return;
  if (sb_tracing ())
    sb_log (SB_LOG_TRACE, "fd %d tcp: %s: the header the library held is "
            "let go", fd, why);
  sb_real_ready ();
  if (sb_real.setsockopt)
    sb_real.setsockopt (fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  errno = saved;
}

/* Stop following FD (entry E): give its slot back; REASON is logged. */
static void
drop_slot (int fd, uint32_t e, const char *reason)
{
  uint32_t next = (e & ~(SB_FD_SLOT_MASK | SB_FD_GEN_MASK)) | SB_FD_NOFRAME;

  if (!(e & SB_FD_TUNED))
    next &= ~(uint32_t) SB_FD_CANDIDATE;   /* not NBD: never tuned */
  /* Unfollowed, its sends no longer come here to push it. */
  let_go (fd, e, "NBD framing no longer followed");
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
    if (sb_fd_update (fd, e, e | SB_FD_APPMORE)) {
      /* The kernel ignores a program's MSG_MORE while earlier bytes
       * are unacknowledged (autocorking), so a payload piece sent with
       * MSG_MORE after a plain header leaves anyway; after a held
       * header it would be held too.
       */
      let_go (fd, e, "the program passes MSG_MORE itself");
      return e | SB_FD_APPMORE;
    }
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

/* Passes of a plan over one send: each after the window moved. */
#define PLAN_PASSES 4

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
  /* Field by field: the iovecs and the window are filled when read. */
  p->entry = e;
  p->more = 0;
  p->call = call;
  p->why = NULL;
  p->iovcnt = 0;
  if (!(e & (SB_FD_TUNED | SB_FD_CANDIDATE)))
    return 0;
  p->why = why_not_corked (e, flags);
  return 1;
}

/* The program's flags MSG_MORE may join; others (MSG_OOB, MSG_EOR,
 * MSG_ZEROCOPY...) change what the kernel does with the bytes.
 */
#define PLANNED_FLAGS (MSG_NOSIGNAL | MSG_DONTWAIT)

/* The most one call sends (the kernel's MAX_RW_COUNT): a longer send
 * is cut, so it cannot end where it was planned to.
 */
#define SEND_MAX ((size_t) INT_MAX & ~(size_t) 4095)

/* Copy the program's iovecs (from its msghdr for SB_SEND_MSG) into P.
 * A reason not to plan the send, or NULL.
 */
static const char *
copy_iovecs (const struct sb_send_args *a, struct sb_send_plan *p)
{
  const struct iovec *iov = a->iov;
  size_t n = a->iovcnt > 0 ? (size_t) a->iovcnt : 0;
  struct msghdr m;

  if (a->form == SB_SEND_BUF) {
    p->iov[0] = (struct iovec) { (void *) (uintptr_t) a->buf, a->len };
    p->iovcnt = 1;
    return NULL;
  }
  if (a->form == SB_SEND_MSG) {
    if (!sb_peek (&m, a->msg, sizeof m))
      return "passed through (its msghdr is unreadable: the kernel answers)";
    iov = m.msg_iov;
    n = m.msg_iovlen;
  }
  if (n == 0 || n > SB_PEEK_IOV_MAX)
    return "passed through (no pieces, or too many to plan)";
  if (!sb_peek (p->iov, iov, n * sizeof *iov))
    return "passed through (its iovecs are unreadable: the kernel answers)";
  p->iovcnt = (int) n;
  return NULL;
}

/* Read the shape of the send A into P: a reason not to plan it, or
 * NULL.  Only a send that write() and send(), or writev() and
 * sendmsg(), answer alike may be planned: one that cannot fail for its
 * number of pieces, moves bytes, and is not cut by the kernel.
 */
static const char *
read_send (const struct sb_send_args *a, int flags, struct sb_send_plan *p)
{
  const char *why;

  if (flags & ~PLANNED_FLAGS)
    return "passed through (flags MSG_MORE is not added to)";
  why = copy_iovecs (a, p);
  if (why)
    return why;
  p->total = 0;
  for (int i = 0; i < p->iovcnt; i++) {
    if (p->iov[i].iov_len > SEND_MAX - p->total)
      return "passed through (longer than one call sends)";
    p->total += p->iov[i].iov_len;
  }
  sb_peek_window_init (&p->window, p->iov, p->iovcnt, p->total);
  return p->total ? NULL : "passed through (no bytes to send)";
}

/* Where P's send would leave the tracker of FD (entry E).  Its header
 * bytes are read a window at a time, each read made without owning the
 * tracker (a read is a system call); a pass that needs bytes outside
 * the window starts again once the window holds them.
 */
static const char *
plan_end (int fd, uint32_t e, struct sb_send_plan *p)
{
  struct sb_peek_window *w = &p->window;
  enum sb_framing_end end = SB_FRAMING_END_UNREADABLE;
  int slot = SB_FD_SLOT (e);

  for (int pass = 0; pass < PLAN_PASSES; pass++) {
    struct sb_framing *f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT);
    if (f == NULL) {
      lose (fd, e);
      return "passed through (the tracker was in use: framing off)";
    }
    end = sb_framing_send_ends (f, p->iov, p->iovcnt, sb_peek_read, w);
    sb_slot_leave (slot, SB_SLOT_OUT);
    if (end != SB_FRAMING_END_UNREADABLE || !w->missed || !sb_peek_fill (w))
      break;
  }
  if (end == SB_FRAMING_END_UNREADABLE)
    return "passed through (bytes it could not read: the kernel answers)";
  return end_text (end);
}

int
sb_cork_plan (int fd, const char *call, const struct sb_send_args *a,
              int flags, struct sb_send_plan *p)
{
  if (!sb_cork_plan_plain (fd, call, flags, p))
    return 0;
  if (p->why == NULL)
    p->why = read_send (a, flags, p);
  if (p->why == NULL) {
    p->why = plan_end (fd, p->entry, p);
    p->more = p->why == end_text (SB_FRAMING_END_HEADER);
  }
  return 1;
}

/* The iovecs of the send A that the kernel accepted (it returned more
 * than 0): the library's copy if it made one, else the program's own,
 * which the kernel has just read.  ONE holds a single buffer's.
 */
static const struct iovec *
accepted_iov (const struct sb_send_plan *p, const struct sb_send_args *a,
              struct iovec *one, int *iovcnt)
{
  if (p->iovcnt > 0) {
    *iovcnt = p->iovcnt;
    return p->iov;
  }
  switch (a->form) {
  case SB_SEND_BUF:
    *one = (struct iovec) { (void *) (uintptr_t) a->buf, a->len };
    *iovcnt = 1;
    return one;
  case SB_SEND_IOV:
    *iovcnt = a->iovcnt;
    return a->iov;
  default:
    *iovcnt = (int) a->msg->msg_iovlen;
    return a->msg->msg_iov;
  }
}

/* A program that sends each header with its payload (QEMU's sendmsg, our
 * server) has nothing to cork: its tracker is given up, and its sends
 * take the fast path from then on, reading nothing ahead.
 */
#define WHOLE_MESSAGES "the program sends whole NBD messages: nothing to cork"

/* Windows read after a write() or writev() before the tracker gives up
 * on it: each is a system call, and a write with more headers than this
 * is not one a program splits to be corked.
 */
#define FEED_WINDOWS 16

/* Feed the N bytes of IOV that went out to the tracker F of FD (entry
 * E, owning its sending side): straight from IOV, or through W where
 * only the kernel may read them.  With W, bytes it misses are read (not
 * owning the tracker: a read is a system call) and the feed goes on.
 * Returns the tracker, or NULL if it was lost.
 */
static struct sb_framing *
feed_bytes (int fd, uint32_t e, struct sb_framing *f, const struct iovec *iov,
            int iovcnt, size_t n, struct sb_peek_window *w)
{
  int slot = SB_FD_SLOT (e);
  size_t at;

  if (w == NULL) {
    sb_framing_sent (f, iov, iovcnt, n);
    return f;
  }
  at = sb_framing_sent_read (f, iov, iovcnt, 0, n, sb_peek_read, w);
  for (int k = 0; at < n; k++) {
    sb_slot_leave (slot, SB_SLOT_OUT);
    if (k == FEED_WINDOWS || !w->missed || !sb_peek_fill (w)) {
      sb_slot_abandon (slot, SB_FD_GEN (e), SB_FRAMING_OFF_UNREADABLE);
      drop_slot (fd, e, "header bytes it could not read");
      return NULL;
    }
    f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT);
    if (f == NULL) {
      lose (fd, e);
      return NULL;
    }
    at = sb_framing_sent_read (f, iov, iovcnt, at, n, sb_peek_read, w);
  }
  return f;
}

/* Feed the N bytes of IOV that went out (read through W if not NULL)
 * to the tracker of FD (entry E); IOV NULL: N bytes moved unseen.
 * HELD: the library's MSG_MORE now holds them.
 */
static void
feed_sent (int fd, uint32_t e, const struct iovec *iov, int iovcnt, size_t n,
           struct sb_peek_window *w, bool held)
{
  int slot = SB_FD_SLOT (e), seen;
  const char *off = NULL;
  struct sb_framing *f = sb_slot_enter (slot, SB_FD_GEN (e), SB_SLOT_OUT);

  if (f == NULL) {
    lose (fd, e);
    return;
  }
  if (iov)
    f = feed_bytes (fd, e, f, iov, iovcnt, n, w);
  else
    sb_framing_unseen (f, true, n);
  if (f == NULL)
    return;
  f->out_held = held;
  if (sb_framing_needs_reads (f))
    sb_slot_attach_reads (slot, f);
  seen = sb_framing_nbd_seen (f);
  if (sb_framing_is_off (f))
    off = sb_framing_off_reason (f);
  else if (sb_framing_joins (f) && !(e & SB_FD_CANDIDATE))
    off = WHOLE_MESSAGES;
  sb_slot_leave (slot, SB_SLOT_OUT);
  follow_up (fd, e, seen, off);
}

/* The length of the send A that returned R, for the trace; false if
 * it is not known without reading what the kernel may have refused.
 */
static bool
send_length (const struct sb_send_plan *p, const struct sb_send_args *a,
             ssize_t r, size_t *len)
{
  struct iovec one;
  const struct iovec *iov;
  int n;

  *len = 0;
  if (p->iovcnt > 0 || a->form == SB_SEND_BUF) {
    *len = p->iovcnt > 0 ? p->total : a->len;
    return true;
  }
  if (r < 0)
    return false;
  iov = accepted_iov (p, a, &one, &n);
  for (int i = 0; iov && i < n; i++)
    *len += iov[i].iov_len;
  return true;
}

/* Feed the N bytes of the send A (planned in P) that the kernel took.
 * Those of a send()-like call it has read; those of a write() or
 * writev() that was not made a send it may not have, so they are read
 * through the kernel, from the window the plan filled if it holds them.
 */
static void
feed_accepted (int fd, struct sb_send_plan *p, const struct sb_send_args *a,
               size_t n)
{
  struct iovec one;
  int iovcnt;
  const struct iovec *iov = accepted_iov (p, a, &one, &iovcnt);
  bool held = p->more && n == p->total;

  if (!a->any_fd || p->more) {
    feed_sent (fd, p->entry, iov, iovcnt, n, NULL, held);
    return;
  }
  if (p->iovcnt == 0)
    sb_peek_window_init (&p->window, iov, iovcnt, n);
  feed_sent (fd, p->entry, iov, iovcnt, n, &p->window, false);
}

void
sb_cork_sent (int fd, struct sb_send_plan *p,
              const struct sb_send_args *a, ssize_t r)
{
  uint32_t e = p->entry;
  size_t len;

  if (sb_tracing ()) {
    if (a && send_length (p, a, r, &len))
      sb_trace_io (fd, e, p->call, len, r, errno, p->why);
    else
      sb_trace_call (fd, e, p->call, r, errno, p->why);
  }
  if (e & SB_FD_TUNED)
    sb_stats_count (fd, r, p->more);
  if (SB_FD_SLOT (e) < 0)
    return;
  if (r <= 0)
    let_go (fd, e, "a send that sent nothing");
  else if (a)
    feed_accepted (fd, p, a, (size_t) r);
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
  if (SB_FD_SLOT (e) < 0)
    return;
  if (sending && r <= 0)
    let_go (fd, e, "a send that sent nothing");
  else if (sending)
    feed_sent (fd, e, NULL, 0, (size_t) r, NULL, false);
  else if (r > 0 && wants_input (e))
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
