/* SPDX-License-Identifier: MIT */
/* Scan the targets once, or with --watch every interval until they have
 * exited or SIGINT/SIGTERM comes.  Nothing here stops or signals them: a
 * pidfd becomes readable when its process exits, and that is all the
 * waiting watches.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "attach.h"

static void
report_cpu (const struct target *t, size_t n, double start)
{
  struct rusage ru;
  double cpu, wall = sb_monotonic_seconds () - start;
  unsigned changed = 0;

  if (getrusage (RUSAGE_SELF, &ru) == -1)
    return;
  for (size_t i = 0; i < n; i++)
    changed += t[i].changed;
  cpu = sb_timeval_seconds (ru.ru_utime) + sb_timeval_seconds (ru.ru_stime);
  printf ("%s: followed %zu process%s for %.1f s, changed %u socket%s, "
          "used %.3f s of CPU", ATTACH_PROGRAM, n, n == 1 ? "" : "es", wall,
          changed, changed == 1 ? "" : "s", cpu);
  /* Start-up dominates a short run: a share of it would mislead. */
  if (wall >= 1)
    printf (" (%.2f%% of one core)", 100 * cpu / wall);
  putchar ('\n');
}

/* SIGINT and SIGTERM as a descriptor to poll, so that a scan is never
 * cut off halfway.
 */
static int
open_signal_fd (void)
{
  sigset_t set;

  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  if (sigprocmask (SIG_BLOCK, &set, NULL) == -1)
    return -1;
  return signalfd (-1, &set, SFD_CLOEXEC);
}

static void
forget_exited (struct target *t)
{
  if (t->o->verbose && t->o->watch)
    printf ("%s: %d exited\n", ATTACH_PROGRAM, (int) t->pid);
  target_close (t);
}

/* Scan every live target once; count those still alive, set *FAILED. */
static size_t
scan_all (struct target *t, size_t n, bool *failed)
{
  size_t alive = 0;

  for (size_t i = 0; i < n; i++) {
    if (t[i].pidfd < 0)
      continue;
    switch (target_scan (&t[i])) {
    case TARGET_FAILED: *failed = true; target_close (&t[i]); break;
    case TARGET_GONE: forget_exited (&t[i]); break;
    default: alive++;
    }
  }
  return alive;
}

/* Wait up to one interval; false on SIGINT/SIGTERM.  A process that has
 * exited is forgotten at once (a zombie still has its /proc/PID).
 */
static bool
wait_interval (struct target *t, size_t n, int sigfd, struct pollfd *p)
{
  size_t np = 1;

  p[0] = (struct pollfd) { .fd = sigfd, .events = POLLIN };
  for (size_t i = 0; i < n; i++)
    if (t[i].pidfd >= 0)
      p[np++] = (struct pollfd) { .fd = t[i].pidfd, .events = POLLIN };
  if (poll (p, np, t->o->interval_ms) == -1 && errno != EINTR)
    return false;
  np = 1;
  for (size_t i = 0; i < n; i++)
    if (t[i].pidfd >= 0 && (p[np++].revents & POLLIN))
      forget_exited (&t[i]);
  return !(p[0].revents & POLLIN);
}

/* After a single scan, where nothing changed: say what was found, so that
 * a user does not take silence for success; a process with no socket at
 * all (the wrong PID?) is an error.
 */
static bool
report_unchanged (const struct target *t, size_t n)
{
  bool ok = true;

  for (size_t i = 0; i < n; i++) {
    if (t[i].pidfd < 0 || t[i].changed > 0)
      continue;
    if (t[i].found.sockets > 0)
      attach_report_unchanged (&t[i]);
    else {
      sb_error ("%d (%s): no socket at all, nothing to tune", (int) t[i].pid,
                t[i].name);
      ok = false;
    }
  }
  return ok;
}

bool
attach_follow (struct target *t, size_t n, const struct attach_options *o)
{
  bool failed = false;
  double start = sb_monotonic_seconds ();
  int sigfd = o->watch ? open_signal_fd () : -1;
  struct pollfd *p = o->watch ? calloc (n + 1, sizeof *p) : NULL;

  if (o->watch && (sigfd == -1 || p == NULL)) {
    sb_error ("cannot watch: %s", strerror (errno));
    failed = true;
  }
  else
    while (scan_all (t, n, &failed) > 0 && o->watch
           && wait_interval (t, n, sigfd, p))
      ;
  if (!o->watch && !report_unchanged (t, n))
    failed = true;
  if (o->watch && o->verbose)
    report_cpu (t, n, start);
  free (p);
  if (sigfd >= 0)
    close (sigfd);
  return !failed;
}
