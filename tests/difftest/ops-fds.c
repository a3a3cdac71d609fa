/* SPDX-License-Identifier: MIT */
/* Descriptor operations of a differential test sequence: options set
 * and read back, peers going away, closes of every kind (raw ones the
 * library cannot see, whose numbers are then reused), dup2 and dup3,
 * and the list of open descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../progs/close-range.h"
#include "difftest-ops.h"

/* The program's own TCP_CORK or TCP_NODELAY, and the values the library
 * changes by design, read back.
 */
void
dt_op_sockopt (struct dt_world *w, struct dt_handle *h, int e)
{
  int fd = h->fd[e], v = dt_pick (w->src, 2), got = -1;
  socklen_t len = sizeof got;
  unsigned what = dt_pick (w->src, 4);
  char text[64], design[48];

  if (fd < 0 || !dt_handle_is_socket (h))
    return;
  errno = DT_ERRNO_SENTINEL;
  switch (what) {
  case 0: case 1:
    snprintf (text, sizeof text, "setsockopt fd %d %s %d", fd,
              what ? "TCP_NODELAY" : "TCP_CORK", v);
    got = w->x->setsockopt (fd, IPPROTO_TCP, what ? TCP_NODELAY : TCP_CORK,
                            &v, sizeof v);
    dt_record (w, text, got, errno);
    if (what == 0 && got == 0)
      h->corked[e] = h->own_hold[e] = v;
    return;
  case 2:
    getsockopt (fd, SOL_SOCKET, SO_SNDBUF, &got, &len);
    dt_trace_line (w->trace, "%u SO_SNDBUF fd %d = %s", w->step, fd,
                   dt_by_design (design, sizeof design,
                                 h->kind == DT_UNIX ? "sndbuf" : "same", got));
    return;
  default:
    getsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &got, &len);
    dt_trace_line (w->trace, "%u TCP_NODELAY fd %d = %s", w->step, fd,
                   dt_by_design (design, sizeof design, "nodelay", got));
  }
}

/* Descriptors LO..HI are about to close.  A TCP end closes with a reset
 * (world.c), dropping what it has not sent: so first every message to
 * or from it is finished (the library may hold a header, design.c rule
 * 3) and every byte sent either way has arrived (Nagle may hold some in
 * the plain run, by design rule 2).
 */
static void
settle_before_close (struct dt_world *w, int lo, int hi)
{
  for (unsigned i = 0; i < DT_HANDLES; i++) {
    struct dt_handle *h = &w->h[i];
    for (int e = 0; e < 2; e++) {
      if (h->fd[e] < lo || h->fd[e] > hi || !dt_handle_paired (h))
        continue;
      dt_settle_sender (w, h, e);
      dt_settle_sender (w, h, !e);
      if (h->kind == DT_TCP || h->kind == DT_NBD) {
        dt_wait_readable (w, h->fd[0], h->pending[1]);
        dt_wait_readable (w, h->fd[1], h->pending[0]);
      }
    }
  }
}

/* The other end of H goes away: a unix peer closes (EPIPE from now on),
 * a TCP peer resets (world.c), or this end shuts down writing.
 */
void
dt_op_peer_gone (struct dt_world *w, struct dt_handle *h, int e)
{
  int fd = h->fd[e], peer = h->fd[!e];
  char what[64];
  long r;

  if (fd < 0 || peer < 0 || !dt_handle_paired (h))
    return;
  if (dt_one_in (w->src, 2)) {
    snprintf (what, sizeof what, "shutdown fd %d SHUT_WR", fd);
    errno = DT_ERRNO_SENTINEL;
    r = shutdown (fd, SHUT_WR);
    dt_record (w, what, r, errno);
    h->nbd_on = false;
    return;
  }
  settle_before_close (w, peer, peer);
  snprintf (what, sizeof what, "close peer fd %d", peer);
  errno = DT_ERRNO_SENTINEL;
  r = w->x->close (peer);
  dt_record (w, what, r, errno);
  h->fd[!e] = -1;
  h->pending[e] = 0;
  h->nbd_on = false;
}

/* Forget FD wherever the model holds it (it was closed). */
static void
forget_fd (struct dt_world *w, int fd)
{
  for (unsigned i = 0; i < DT_HANDLES; i++)
    for (int e = 0; e < 2; e++) {
      if (w->h[i].fd[e] == fd) {
        w->h[i].fd[e] = -1;
        w->h[i].nbd_on = false;
        w->h[i].pending[0] = w->h[i].pending[1] = 0;
      }
      if (w->h[i].alias[e] == fd)
        w->h[i].alias[e] = -1;
    }
}

/* Close end E of H: the hooked close, a raw system call the library does
 * not see (its number is then reused by the next descriptor opened),
 * close_range on it alone (or only marking it close-on-exec), or
 * closefrom and close_range over everything from it up.
 */
void
dt_op_close (struct dt_world *w, struct dt_handle *h, int e)
{
  static const char *const names[] = { "close", "raw close", "close_range",
                                       "close_range CLOEXEC", "closefrom",
                                       "close_range to the end" };
  int fd = h->fd[e];
  unsigned how = dt_pick (w->src, 7);
  char what[64];
  long r = 0;

  /* Raw closes twice as often: they make the numbers reused unseen. */
  if (how == 6)
    how = 1;
  if (fd < 0 || (how >= 4 && !w->x->processes))
    return;
  settle_before_close (w, fd, how >= 4 ? DT_FD_LIMIT : fd);
  snprintf (what, sizeof what, "%s fd %d", names[how], fd);
  errno = DT_ERRNO_SENTINEL;
  switch (how) {
  case 0: r = w->x->close (fd); break;
  case 1: r = syscall (SYS_close, fd); break;
  case 2: r = w->x->close_range ((unsigned) fd, (unsigned) fd, 0); break;
  case 3:
    r = w->x->close_range ((unsigned) fd, (unsigned) fd, CLOSE_RANGE_CLOEXEC);
    break;
  case 4: closefrom (fd); break;
  default: r = w->x->close_range ((unsigned) fd, ~0u, 0); break;
  }
  dt_record (w, what, r, errno);
  if (how == 3)
    return;
  for (int n = fd; n < (how >= 4 ? DT_FD_LIMIT : fd + 1); n++)
    forget_fd (w, n);
}

/* Another number for end E of H: dup2 or dup3 onto a free number (an
 * alias the library does not follow), or onto another handle's end,
 * which closes that handle.
 */
void
dt_op_dup (struct dt_world *w, struct dt_handle *h, int e)
{
  int fd = h->fd[e], target = DT_FD_ALIASES + (int) dt_pick (w->src, 16);
  struct dt_handle *other = &w->h[dt_pick (w->src, DT_HANDLES)];
  bool onto_other = dt_one_in (w->src, 3) && other != h && other->fd[0] >= 0;
  bool three = dt_one_in (w->src, 2);
  char what[64];
  long r;

  if (fd < 0)
    return;
  if (onto_other)
    target = other->fd[0];
  snprintf (what, sizeof what, "%s fd %d onto %d", three ? "dup3" : "dup2",
            fd, target);
  errno = DT_ERRNO_SENTINEL;
  r = three ? w->x->dup3 (fd, target, O_CLOEXEC) : w->x->dup2 (fd, target);
  dt_record (w, what, r, errno);
  if (r < 0)
    return;
  if (h->alias[e] >= 0 && h->alias[e] != target)
    w->x->close (h->alias[e]);
  forget_fd (w, target);
  h->alias[e] = target;
  /* What is left of the handle whose end was replaced goes too. */
  if (onto_other)
    dt_handle_close (w, (unsigned) (other - w->h));
}

/* The descriptors open, by number and kind (not where the sequence
 * shares its process with another, as in the fuzzer).
 */
void
dt_op_fds (struct dt_world *w)
{
  char line[1024] = "", link[64], target[256];
  size_t at = 0;

  if (!w->x->processes)
    return;
  for (int fd = 3; fd < DT_FD_SCAN && at < sizeof line - 64; fd++) {
    ssize_t n;
    snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink (link, target, sizeof target - 1);
    if (n < 0)
      continue;
    target[n] = '\0';
    /* Inode numbers differ from run to run: the kind is what counts. */
    if (strchr (target, '['))
      *strchr (target, '[') = '\0';
    at += (size_t) snprintf (line + at, sizeof line - at, " %d:%s", fd,
                             target);
  }
  dt_trace_line (w->trace, "%u fds%s", w->step, line);
}

