/* SPDX-License-Identifier: MIT */
/* SIGINT and SIGTERM during a transfer.  The first asks for no more
 * requests: those in flight complete and are written, so the data moved
 * ends without a gap, and the connections disconnect in good order.  A
 * second stops waiting for a server that does not answer.
 */
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>

#include "client.h"

static const int caught[] = { SIGINT, SIGTERM };
#define NCAUGHT (sizeof caught / sizeof caught[0])

static struct job *job;
static struct sigaction saved[NCAUGHT];
static bool installed[NCAUGHT];

/* Async-signal-safe: lock-free atomics and shutdown(2) only. */
static void
on_signal (int sig)
{
  int none = 0;
  unsigned i;

  if (atomic_compare_exchange_strong (&job->interrupted, &none, sig)) {
    job_end_early (job);
    return;
  }
  /* Quietly: the errors that follow are of our making. */
  job_stop_quietly (job);
  for (i = 0; i < job->connections; i++)
    shutdown (job->fds[i], SHUT_RDWR);
}

void
interrupt_catch (struct job *j)
{
  struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
  size_t i;

  job = j;
  sigemptyset (&sa.sa_mask);
  for (i = 0; i < NCAUGHT; i++) {
    /* Whoever started us with a signal ignored (nohup, a background
     * job of a script) meant it to be ignored.
     */
    if (sigaction (caught[i], NULL, &saved[i]) == -1
        || saved[i].sa_handler == SIG_IGN)
      continue;
    installed[i] = sigaction (caught[i], &sa, NULL) == 0;
  }
}

void
interrupt_release (void)
{
  size_t i;

  for (i = 0; i < NCAUGHT; i++)
    if (installed[i]) {
      sigaction (caught[i], &saved[i], NULL);
      installed[i] = false;
    }
}
