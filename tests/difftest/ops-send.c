/* SPDX-License-Identifier: MIT */
/* Sending operations of a differential test sequence: every hooked send
 * call (NBD-shaped on NBD pairs, in pieces, with the program's own
 * flags), bad buffers, sendfile and splice.  Each records its results.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "difftest-ops.h"

/* Room a blocking end may fill without ever blocking. */
static size_t
room (const struct dt_handle *h, int e)
{
  size_t cap = h->kind == DT_UNIX ? 65536 : 16384;

  if (h->kind == DT_UNIX_SMALL || h->kind == DT_FILE || h->kind == DT_DEVNULL)
    return 8192;
  return h->pending[e] < cap ? cap - h->pending[e] : 0;
}

/* The program's own flags: none, MSG_NOSIGNAL, MSG_DONTWAIT, and now and
 * then MSG_MORE (which libnbd and nbdkit pass), never the default.
 */
static int
own_flags (struct dt_world *w)
{
  static const int flags[] = { 0, MSG_NOSIGNAL, MSG_DONTWAIT,
                               MSG_NOSIGNAL | MSG_DONTWAIT };
  int f = flags[dt_pick (w->src, 4)];

  if (dt_one_in (w->src, 24))
    f |= MSG_MORE;
  return f;
}

/* Cut LEN bytes at P into at most MAX iovecs (some empty); now and then
 * into about IOV_MAX of them, on either side of the kernel's limit (more
 * often for a piece that is just an NBD header, which the library may
 * send in another call).
 */
static int
cut_iov (struct dt_world *w, struct iovec *iov, int max, const void *p,
            size_t len)
{
  int n = 1 + (int) dt_pick (w->src, (unsigned) max);
  size_t at = 0;
  bool header = len == 16 || len == 20 || len == 28 || len == 32;

  if (max >= DT_IOV_MANY && dt_one_in (w->src, header ? 3 : 12))
    n = IOV_MAX - 1 + (int) dt_pick (w->src, 3);
  else if (n > 4)
    n = 1 + n % 4;
  for (int i = 0; i < n; i++) {
    size_t piece = i == n - 1 ? len - at : dt_pick (w->src,
                                                    (unsigned) (len - at + 1));
    iov[i] = (struct iovec) { (char *) (uintptr_t) p + at, piece };
    at += piece;
  }
  return n;
}

static const char *const send_calls[] = {
  "write", "send", "sendto", "sendmsg", "writev", "sendmmsg",
};

/* Send LEN bytes at P on FD with the hooked call number CALL. */
static ssize_t
send_with (struct dt_world *w, unsigned call, int fd, const void *p,
              size_t len, int flags)
{
  static struct iovec iov[DT_IOV_MANY];
  struct msghdr m = { .msg_iov = iov };
  struct mmsghdr mm[1] = { { .msg_hdr = { .msg_iov = iov } } };
  int r;

  switch (call) {
  case 0: return w->x->write (fd, p, len);
  case 1: return w->x->send (fd, p, len, flags);
  case 2: return w->x->sendto (fd, p, len, flags, NULL, 0);
  case 3:
    m.msg_iovlen = (size_t) cut_iov (w, iov, DT_IOV_MANY, p, len);
    return w->x->sendmsg (fd, &m, flags);
  case 4:
    return w->x->writev (fd, iov, cut_iov (w, iov, DT_IOV_MANY, p, len));
  default:
    mm[0].msg_hdr.msg_iovlen = (size_t) cut_iov (w, iov, 4, p, len);
    r = w->x->sendmmsg (fd, mm, 1, flags);
    return r == 1 ? (ssize_t) mm[0].msg_len : r;
  }
}

/* The bytes end E of H sends next: its NBD message's next piece, or
 * bytes of no protocol.  NULL if there is nothing to send.
 */
static const uint8_t *
next_bytes (struct dt_world *w, struct dt_handle *h, int e, uint8_t *buf,
            size_t *len)
{
  size_t max = room (h, e);

  if (max == 0)
    return NULL;
  if (h->nbd_on)
    return dt_nbd_piece (w, h, e, max, len);
  *len = dt_length (w->src, max < 8192 ? max : 8192);
  dt_fill (w->src, buf, *len);
  return buf;
}

/* A send on end E of H through FD (its own number or an alias)
 * returned R, the bytes that left; R <= 0: none.  One that moved
 * nothing on the end's own number lets go of a header the library held
 * (design.c, rule 3); through an alias, a number the library does not
 * follow, it cannot.
 */
static void
moved (struct dt_handle *h, int e, int fd, ssize_t r)
{
  if (r <= 0) {
    if (fd == h->fd[e])
      h->sent_nothing[e] = true;
    return;
  }
  h->sent_nothing[e] = false;
  dt_sent (h, e, r);
  if (h->nbd_on)
    dt_nbd_sent (h, e, (size_t) r);
}

/* After a send of end E of H that returned R: does the program hold
 * bytes itself now (TCP_CORK, or MSG_MORE with nothing after it yet)?
 */
static void
own_hold (struct dt_handle *h, int e, long r, bool more)
{
  if (r > 0 && (h->kind == DT_TCP || h->kind == DT_NBD))
    h->own_hold[e] = more || h->corked[e];
}

/* Right after end E of H sent an NBD header alone, now and then a send
 * that moves nothing, then the other end reads: the header must have
 * left by then, as it has plainly (design.c, rule 3).
 */
static void
after_header (struct dt_world *w, struct dt_handle *h, int e)
{
  if (!dt_nbd_header_only (h, e) || !dt_one_in (w->src, 2))
    return;
  dt_op_send_nothing (w, h, e);
  if (dt_one_in (w->src, 2))
    dt_op_drain (w, h, !e);
}

void
dt_op_send (struct dt_world *w, struct dt_handle *h, int e)
{
  static uint8_t buf[8192];
  unsigned call = dt_pick (w->src, 6);
  int fd = dt_end_fd (w, h, e), flags = call == 0 || call == 4 ? 0
    : own_flags (w);
  size_t len;
  const uint8_t *p = next_bytes (w, h, e, buf, &len);
  char what[96];
  ssize_t r;

  if (p == NULL || fd < 0)
    return;
  snprintf (what, sizeof what, "%s fd %d %zu bytes flags %#x",
            send_calls[call], fd, len, flags);
  errno = DT_ERRNO_SENTINEL;
  r = send_with (w, call, fd, p, len, flags);
  dt_record (w, what, (long) r, errno);
  moved (h, e, fd, r);
  own_hold (h, e, r, flags & MSG_MORE);
  after_header (w, h, e);
}

/* Finish the NBD message end E of H left open, in one plain write,
 * where the library may hold its header until the payload follows
 * (design.c, rule 3).
 */
static void
finish_message (struct dt_world *w, struct dt_handle *h, int e)
{
  size_t len;
  const uint8_t *p;
  int fd = h->fd[e];
  char what[64];
  ssize_t r;

  if (fd < 0 || !dt_design_may_hold (h, e)
      || (p = dt_nbd_rest (h, e, &len)) == NULL)
    return;
  snprintf (what, sizeof what, "finish message fd %d %zu bytes", fd, len);
  errno = DT_ERRNO_SENTINEL;
  r = w->x->write (fd, p, len);
  dt_record (w, what, (long) r, errno);
  moved (h, e, fd, r);
  if (r != (ssize_t) len)
    h->nbd_on = false;
}

/* Before the other end reads or goes away, end E of H lets go of what it
 * may hold: it finishes its NBD message (design.c, rule 3) and unsets
 * TCP_CORK where it corked or last sent with MSG_MORE (rule 4).
 */
void
dt_settle_sender (struct dt_world *w, struct dt_handle *h, int e)
{
  int fd = h->fd[e], off = 0;
  char what[64];
  long r;

  finish_message (w, h, e);
  if (fd < 0 || !h->own_hold[e])
    return;
  h->own_hold[e] = false;
  snprintf (what, sizeof what, "uncork fd %d", fd);
  errno = DT_ERRNO_SENTINEL;
  r = w->x->setsockopt (fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  dt_record (w, what, r, errno);
}

/* The bad buffers: NULL, unmapped, PROT_NONE, a bad iovec array or
 * msghdr, or a valid NBD piece followed by a bad iovec.
 */
void
dt_op_send_bad (struct dt_world *w, struct dt_handle *h, int e)
{
  static uint8_t buf[8192];
  static const char *const bad_names[] = { "NULL", "unmapped", "PROT_NONE",
                                           "(void *) 1" };
  void *bad[] = { NULL, w->unmapped, w->prot_none, (void *) 1 };
  unsigned which = dt_pick (w->src, 4);
  void *b = bad[which];
  int fd = dt_end_fd (w, h, e), flags = MSG_NOSIGNAL | MSG_DONTWAIT;
  unsigned how = dt_pick (w->src, 6);
  size_t len = 0;
  const uint8_t *p = how >= 4 ? next_bytes (w, h, e, buf, &len) : NULL;
  struct iovec iov[2] = { { (void *) (uintptr_t) p, len }, { b, 100 } };
  struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
  char what[96];
  long r;

  if (fd < 0 || (how >= 4 && p == NULL))
    return;
  snprintf (what, sizeof what, "bad %u fd %d %zu bytes then %s", how, fd,
            len, bad_names[which]);
  errno = DT_ERRNO_SENTINEL;
  switch (how) {
  case 0: r = w->x->send (fd, b, 100, flags); break;
  case 1: r = w->x->write (fd, b, 100); break;
  case 2: r = w->x->writev (fd, b, 2); break;
  case 3: r = w->x->sendmsg (fd, b, flags); break;
  case 4: r = w->x->writev (fd, iov, 2); break;
  default: r = w->x->sendmsg (fd, &m, flags); break;
  }
  dt_record (w, what, r, errno);
  /* Only the valid piece can have gone (a file or /dev/null aside). */
  if (dt_handle_is_socket (h) || h->kind == DT_PIPE)
    moved (h, e, fd, r > (long) len ? (long) len : r);
}

/* sendfile from a memory file, or splice from a pipe, of the next
 * bytes; now and then asking for more than there is, or for nothing,
 * or with the program's own SPLICE_F_MORE.
 */
void
dt_op_sendfile (struct dt_world *w, struct dt_handle *h, int e)
{
  static uint8_t buf[8192];
  int fd = dt_end_fd (w, h, e), src[2] = { -1, -1 };
  size_t len = 0, ask;
  const uint8_t *p = next_bytes (w, h, e, buf, &len);
  bool splicing = dt_one_in (w->src, 2);
  unsigned more = splicing && dt_one_in (w->src, 8) ? SPLICE_F_MORE : 0;
  char what[96];
  long r;

  if (fd < 0 || p == NULL)
    return;
  ask = dt_one_in (w->src, 8) ? 0 : dt_one_in (w->src, 6) ? len + 100 : len;
  if (splicing ? pipe (src) == -1 : (src[0] = memfd_create ("dt", 0)) == -1)
    return;
  if (write (splicing ? src[1] : src[0], p, len) != (ssize_t) len)
    return;
  snprintf (what, sizeof what, "%s fd %d %zu of %zu bytes%s", splicing
            ? "splice" : "sendfile", fd, ask, len, more ? " SPLICE_F_MORE" : "");
  errno = DT_ERRNO_SENTINEL;
  if (splicing)
    r = w->x->splice (src[0], NULL, fd, NULL, ask, more);
  else
    r = w->x->sendfile (fd, src[0], &(off_t) { 0 }, ask);
  dt_record (w, what, r, errno);
  moved (h, e, fd, r);
  own_hold (h, e, r, more != 0);
  close (src[0]);
  if (src[1] >= 0)
    close (src[1]);
}


static const char *const nothing_names[] = {
  "write 0 bytes", "send 0 bytes", "sendto 0 bytes", "sendmsg no iovecs",
  "writev no iovecs", "sendmmsg no messages", "sendmmsg an empty message",
  "send from NULL", "sendfile from a socket", "sendfile from fd -1",
  /* From here on from a file of one byte. */
  "sendfile past the end", "sendfile 0 bytes", "sendfile at offset -1",
  /* From here on from a pipe. */
  "splice 0 bytes", "splice from an empty pipe",
  "splice from a pipe at its end",
};

#define NOTHING_WAYS (sizeof nothing_names / sizeof nothing_names[0])
#define NOTHING_FROM_FILE 10
#define NOTHING_FROM_PIPE 13

/* What send number HOW of nothing_names sends from into SRC: a file
 * of one byte, a pipe (holding a byte for a splice of 0 bytes, its
 * writer gone for the last), or nothing.  False if it cannot be made.
 */
static bool
nothing_source (unsigned how, int src[2])
{
  static const uint8_t byte;

  if (how < NOTHING_FROM_FILE)
    return true;
  if (how < NOTHING_FROM_PIPE)
    return (src[0] = memfd_create ("dt", 0)) >= 0 && write (src[0], &byte, 1)
      == 1;
  if (pipe (src) == -1)
    return false;
  if (how == NOTHING_FROM_PIPE)
    return write (src[1], &byte, 1) == 1;
  if (how == NOTHING_WAYS - 1) {
    close (src[1]);
    src[1] = -1;
  }
  return true;
}

/* The send number HOW of nothing_names on FD, with the program's FLAGS,
 * from SRC.
 */
static long
send_nothing_with (struct dt_world *w, unsigned how, int fd, int flags,
                   const int src[2])
{
  static uint8_t byte;
  struct iovec iov = { &byte, 0 };
  struct msghdr m = { .msg_iov = NULL };
  struct mmsghdr mm[1] = { { .msg_hdr = { .msg_iov = &iov,
                                          .msg_iovlen = 1 } } };
  long r;

  switch (how) {
  case 0: return w->x->write (fd, &byte, 0);
  case 1: return w->x->send (fd, &byte, 0, flags);
  case 2: return w->x->sendto (fd, &byte, 0, flags, NULL, 0);
  case 3: return w->x->sendmsg (fd, &m, flags);
  case 4: return w->x->writev (fd, &iov, 0);
  case 5: return w->x->sendmmsg (fd, mm, 0, flags);
  case 6:
    r = w->x->sendmmsg (fd, mm, 1, flags);
    return r == 1 ? (long) mm[0].msg_len : r;
  case 7: return w->x->send (fd, NULL, 16, flags);
  case 8: return w->x->sendfile (fd, fd, NULL, 16);
  case 9: return w->x->sendfile (fd, -1, NULL, 16);
  case 10: return w->x->sendfile (fd, src[0], &(off_t) { 100 }, 16);
  case 11: return w->x->sendfile (fd, src[0], &(off_t) { 0 }, 0);
  case 12: return w->x->sendfile (fd, src[0], &(off_t) { -1 }, 16);
  case 13: return w->x->splice (src[0], NULL, fd, NULL, 0, 0);
  case 14: return w->x->splice (src[0], NULL, fd, NULL, 16,
                                SPLICE_F_NONBLOCK);
  default: return w->x->splice (src[0], NULL, fd, NULL, 16, 0);
  }
}

/* A send on end E of H that moves nothing, as a program makes one at the
 * end of its data or by mistake: 0 bytes by each send call, sendfile
 * from a socket, from no descriptor, past the end of its file, of 0
 * bytes or at a bad offset, splice of 0 bytes, from an empty pipe or
 * from one whose writer is gone, a send from a NULL buffer.
 */
void
dt_op_send_nothing (struct dt_world *w, struct dt_handle *h, int e)
{
  unsigned how = dt_pick (w->src, NOTHING_WAYS);
  int fd = dt_end_fd (w, h, e), flags = own_flags (w), src[2] = { -1, -1 };
  char what[96];
  long r;

  if (fd >= 0 && nothing_source (how, src)) {
    snprintf (what, sizeof what, "nothing: %s fd %d flags %#x",
              nothing_names[how], fd, flags);
    errno = DT_ERRNO_SENTINEL;
    r = send_nothing_with (w, how, fd, flags, src);
    dt_record (w, what, r, errno);
    moved (h, e, fd, r);
    own_hold (h, e, r, flags & MSG_MORE);
  }
  for (int i = 0; i < 2; i++)
    if (src[i] >= 0)
      close (src[i]);
}
