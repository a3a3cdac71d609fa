/* SPDX-License-Identifier: MIT */
/* Process-wide operations of a differential test sequence: a fork child
 * that sends, receives and closes its copies; a vfork child that closes
 * one and execs (it runs in its parent's memory, where the library's
 * tables are); a thread doing the same as the main one.  The world and
 * the trace are in shared memory, so a child's calls and what they did
 * to the streams are the sequence's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "difftest-ops.h"

static void
record_status (struct dt_world *w, const char *what, pid_t pid)
{
  int status = 0;

  if (pid == -1) {
    dt_record (w, what, -1, errno);
    return;
  }
  while (waitpid (pid, &status, 0) == -1 && errno == EINTR)
    ;
  if (WIFSIGNALED (status))
    dt_trace_line (w->trace, "%u %s: killed by %s", w->step, what,
                   sigabbrev_np (WTERMSIG (status)));
  else
    dt_trace_line (w->trace, "%u %s: exit %d", w->step, what,
                   WEXITSTATUS (status));
}

/* The child sends and receives a little, then closes all it has. */
void
dt_op_fork (struct dt_world *w)
{
  unsigned n = 1 + dt_pick (w->src, 3);
  pid_t pid;

  if (!w->x->processes)
    return;
  fflush (NULL);
  pid = fork ();
  if (pid == 0) {
    for (unsigned i = 0; i < n; i++)
      dt_op_on_handle (w, true);
    int r;
    errno = DT_ERRNO_SENTINEL;
    r = w->x->close_range (3, ~0u, 0);
    dt_record (w, "child close_range 3..", r, errno);
    _exit (0);
  }
  record_status (w, "fork", pid);
}

/* The child closes one descriptor (its own copy: the parent's stays
 * open and followed) and execs, or fails to.
 */
void
dt_op_vfork_exec (struct dt_world *w)
{
  struct dt_handle *h = &w->h[dt_pick (w->src, DT_HANDLES)];
  int fd = h->fd[0];
  bool missing = dt_one_in (w->src, 4);
  static char name[] = "true";
  char *const argv[] = { name, NULL };
  extern char **environ;
  pid_t pid;

  if (!w->x->processes)
    return;
  pid = vfork ();
  if (pid == 0) {
    if (fd >= 0)
      w->x->close (fd);
    execve (missing ? "/nonexistent/true" : "/bin/true", argv, environ);
    _exit (127);
  }
  record_status (w, missing ? "vfork, close, exec missing"
                 : "vfork, close, exec", pid);
}

static void *
thread_ops (void *arg)
{
  struct dt_world *w = arg;
  unsigned n = 1 + dt_pick (w->src, 3);

  for (unsigned i = 0; i < n; i++)
    dt_op_on_handle (w, false);
  return NULL;
}

/* Another thread makes the calls while this one waits for it. */
void
dt_op_thread (struct dt_world *w)
{
  pthread_t t;
  int err;

  if (!w->x->processes)
    return;
  err = pthread_create (&t, NULL, thread_ops, w);
  if (err) {
    dt_record (w, "pthread_create", -1, err);
    return;
  }
  pthread_join (t, NULL);
  dt_trace_line (w->trace, "%u thread joined", w->step);
}
