/* SPDX-License-Identifier: MIT */
/* Receiving operations of a differential test sequence: a drain of all
 * that was sent, or one receive with the program's own flags, size and
 * buffer, always once the bytes sent have arrived.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "difftest-ops.h"

static long
elapsed_ms (const struct timespec *t0)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Wait (bounded) until FD has WANT bytes to read.  True if that took
 * long enough to be a held segment (the kernel's 200 ms cork timer),
 * which both runs must show alike.
 */
bool
dt_wait_readable (struct dt_world *w, int fd, size_t want)
{
  struct timespec t0;
  int n = 0;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (ioctl (fd, FIONREAD, &n) == 0 && (size_t) n < want) {
    long left = w->wait_ms - elapsed_ms (&t0);
    struct pollfd p = { fd, POLLIN, 0 };
    if (left <= 0)
      break;
    /* POLLIN says "some", not "all": poll again after a short nap. */
    if (poll (&p, 1, (int) (left < 5 ? left : 5)) == -1)
      break;
  }
  return elapsed_ms (&t0) >= DT_LATE_MS;
}

/* FNV-1a, continued from X over N more bytes at P: the same however
 * the bytes came in.
 */
#define HASH_START UINT64_C (0xcbf29ce484222325)

static uint64_t
hash_bytes (uint64_t x, const uint8_t *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x = (x ^ p[i]) * UINT64_C (0x100000001b3);
  return x;
}

static const char *const recv_calls[] = {
  "read", "recv", "recvfrom", "recvmsg", "readv", "recvmmsg",
};

/* Receive up to LEN bytes into BUF on FD with the hooked call CALL. */
static ssize_t
recv_with (struct dt_world *w, unsigned call, int fd, void *buf, size_t len,
           int flags)
{
  struct iovec iov[2] = { { buf, len / 2 },
                          { (char *) buf + len / 2, len - len / 2 } };
  struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
  struct mmsghdr mm[1] = { { .msg_hdr = m } };
  int r;

  switch (call) {
  case 0: return w->x->read (fd, buf, len);
  case 1: return w->x->recv (fd, buf, len, flags);
  case 2: return w->x->recvfrom (fd, buf, len, flags, NULL, NULL);
  case 3: return w->x->recvmsg (fd, &m, flags);
  case 4: return w->x->readv (fd, iov, 2);
  default:
    r = w->x->recvmmsg (fd, mm, 1, flags, NULL);
    return r == 1 ? (ssize_t) mm[0].msg_len : r;
  }
}

/* R bytes that end E of H read: no longer on their way. */
static void
consumed (struct dt_handle *h, int e, ssize_t r)
{
  if (r <= 0)
    return;
  h->pending[!e] -= (size_t) r < h->pending[!e] ? (size_t) r : h->pending[!e];
  if (h->nbd_on && h->kind == DT_NBD && e == 1)
    dt_nbd_read (h, (size_t) r);
}

/* Read what was sent to end E of H: all of it, in calls of every kind
 * as the bytes arrive (reading makes the receiver acknowledge, which
 * lets a plain sender's Nagle go on), once the other end finished any
 * NBD message it had open.  What was read and whether that took long
 * are recorded: a wait the library made longer is a stall.
 */
void
dt_op_drain (struct dt_world *w, struct dt_handle *h, int e)
{
  static uint8_t buf[65536];
  int fd = h->fd[e];
  uint64_t hash = HASH_START;
  size_t total = 0;
  struct timespec t0;
  /* How many reads it takes depends on timing: their choices come from
   * a generator of their own, so that the sequence's stay in step.
   */
  struct dt_source reads;
  char what[64], late[48];

  if (fd < 0 || !dt_handle_paired (h))
    return;
  dt_source_seed (&reads, dt_pick (w->src, 1u << 30));
  dt_settle_sender (w, h, !e);
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (int k = 0; k < 1000 && h->pending[!e] > 0; k++) {
    unsigned call = 1 + dt_pick (&reads, 5);
    size_t want = h->kind == DT_UDP ? sizeof buf
      : dt_length (&reads, h->pending[!e]);
    struct pollfd p = { fd, POLLIN, 0 };
    long left = w->wait_ms - elapsed_ms (&t0);
    ssize_t r;
    if (left <= 0 || poll (&p, 1, (int) left) <= 0)
      break;
    r = recv_with (w, call == 4 ? 0 : call, fd, buf, want, MSG_DONTWAIT);
    if (r <= 0)
      continue;
    hash = hash_bytes (hash, buf, (size_t) r);
    total += (size_t) r;
    consumed (h, e, r);
  }
  snprintf (what, sizeof what, "drain fd %d", fd);
  dt_trace_line (w->trace, "%u %s = %zu bytes, hash %016llx, %zu left, "
                 "late %s", w->step, what, total, (unsigned long long) hash,
                 h->pending[!e], dt_by_design (late, sizeof late, "late",
                                               w->timing && elapsed_ms (&t0)
                                               >= DT_LATE_MS));
}

/* One receive with the program's own flags, size and buffer (sometimes a
 * bad one), once the bytes sent are all there.
 */
void
dt_op_recv (struct dt_world *w, struct dt_handle *h, int e)
{
  static uint8_t buf[8192];
  static const int flags[] = { MSG_DONTWAIT, MSG_PEEK | MSG_DONTWAIT,
                               MSG_TRUNC | MSG_DONTWAIT, MSG_WAITALL };
  unsigned call = dt_pick (w->src, 6);
  int fd = h->fd[e], f = flags[dt_pick (w->src, 4)];
  size_t len = dt_length (w->src, sizeof buf);
  void *b = dt_one_in (w->src, 8) ? w->prot_none : buf;
  char what[96];
  ssize_t r;

  if (fd < 0 || h->kind == DT_UDP || !(dt_handle_paired (h)
                                       || h->kind == DT_PIPE))
    return;
  dt_settle_sender (w, h, !e);
  /* Calls without flags, and MSG_WAITALL, only where they cannot block;
   * MSG_TRUNC discards bytes, so not where the model follows them.
   */
  if ((f == MSG_WAITALL || call == 0 || call == 4) && h->pending[!e] < len)
    f = MSG_DONTWAIT, call = 1;
  if ((f & MSG_TRUNC) && (h->nbd_on || h->kind == DT_PIPE))
    f = MSG_DONTWAIT;
  /* A stream call reads what is there up to LEN: wait for that much. */
  dt_wait_readable (w, fd, len < h->pending[!e] ? len : h->pending[!e]);
  snprintf (what, sizeof what, "%s fd %d %zu bytes flags %#x%s",
            recv_calls[call], fd, len, call == 0 || call == 4 ? 0 : f,
            b == buf ? "" : " into PROT_NONE");
  errno = DT_ERRNO_SENTINEL;
  r = recv_with (w, call, fd, b, len, f);
  dt_record (w, what, (long) r, errno);
  if (r > 0 && b == buf && !(f & MSG_TRUNC))
    dt_trace_line (w->trace, "  hash %016llx",
                   (unsigned long long) hash_bytes (HASH_START, buf,
                                                   (size_t) r));
  if (!(f & MSG_PEEK) || call == 0 || call == 4)
    consumed (h, e, r);
}

