/* SPDX-License-Identifier: MIT */
/* A differential test sequence: handles opened, then operations drawn
 * one after another from the source.
 */
#include <signal.h>
#include <stdio.h>

#include "difftest-ops.h"

static volatile sig_atomic_t sigpipes;

static void
count_sigpipe (int sig)
{
  (void) sig;
  sigpipes++;
}

void
dt_record (struct dt_world *w, const char *what, long r, int err)
{
  char res[64];
  unsigned seen = (unsigned) sigpipes;

  dt_trace_line (w->trace, "%u %s = %s%s", w->step, what,
                 dt_result (res, sizeof res, r, err),
                 seen != w->sigpipes_seen ? " +SIGPIPE" : "");
  w->sigpipes_seen = seen;
}

void
dt_ops_init (struct dt_world *w)
{
  struct sigaction sa = { .sa_handler = count_sigpipe };

  sigemptyset (&sa.sa_mask);
  sigaction (SIGPIPE, &sa, NULL);
  w->sigpipes_seen = (unsigned) sigpipes;
}

int
dt_end_fd (struct dt_world *w, const struct dt_handle *h, int e)
{
  if (h->alias[e] >= 0 && dt_one_in (w->src, 4))
    return h->alias[e];
  return h->fd[e];
}

/* A handle to work on, its end, and one operation on it.  A fork child
 * (IN_CHILD) leaves the descriptors' life to its parent.
 */
void
dt_op_on_handle (struct dt_world *w, bool in_child)
{
  struct dt_handle *h = &w->h[dt_pick (w->src, DT_HANDLES)];
  int e = h->kind == DT_PIPE || !dt_handle_paired (h) ? 0
    : (int) dt_pick (w->src, 2);
  unsigned op = dt_pick (w->src, in_child ? 24 : 32);

  if (!h->used)
    return;
  if (op < 11)
    dt_op_send (w, h, e);
  else if (op < 12)
    dt_op_send_nothing (w, h, e);
  else if (op < 14)
    dt_op_send_bad (w, h, e);
  else if (op < 16)
    dt_op_sendfile (w, h, e);
  else if (op < 20)
    dt_op_drain (w, h, e);
  else if (op < 23)
    dt_op_recv (w, h, e);
  else if (op < 24)
    dt_op_sockopt (w, h, e);
  else if (op < 26)
    dt_op_close (w, h, e);
  else if (op < 27)
    dt_op_dup (w, h, e);
  else
    dt_op_peer_gone (w, h, e);
}

/* A new handle; every other time a pipe, file or /dev/null, which take
 * the numbers closed unseen before them.
 */
static void
op_open (struct dt_world *w)
{
  static const enum dt_kind plain_kinds[] = { DT_PIPE, DT_FILE, DT_DEVNULL };
  unsigned i = dt_pick (w->src, DT_HANDLES);

  if (dt_one_in (w->src, 2))
    dt_handle_open (w, i, plain_kinds[dt_pick (w->src, 3)]);
  else
    dt_handle_open (w, i, (enum dt_kind) dt_pick (w->src, DT_KINDS));
}

void
dt_run (struct dt_world *w, unsigned ops)
{
  dt_ops_init (w);
  for (unsigned i = 0; i < 4; i++)
    dt_handle_open (w, i, (enum dt_kind) dt_pick (w->src, DT_KINDS));
  for (w->step = 1; w->step <= ops && !w->src->exhausted; w->step++) {
    unsigned op = dt_pick (w->src, 64);
    if (op < 52)
      dt_op_on_handle (w, false);
    else if (op < 56)
      op_open (w);
    else if (op < 58)
      dt_op_fork (w);
    else if (op < 60)
      dt_op_vfork_exec (w);
    else if (op < 62)
      dt_op_thread (w);
    else
      dt_op_fds (w);
  }
  dt_op_fds (w);
}
