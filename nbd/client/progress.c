/* SPDX-License-Identifier: MIT */
/* --progress: a bar on stderr, redrawn four times a second by a thread of
 * its own so that the connections never wait for the terminal.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "client.h"

#define BAR_WIDTH 30
#define INTERVAL_NS 250000000L
#define GIB (1024.0 * 1024.0 * 1024.0)

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static bool running, stopping;
static struct job *job;
static double started;

static double
elapsed (void)
{
  return sb_monotonic_seconds () - started;
}

static void
draw (void)
{
  uint64_t done = atomic_load (&job->bytes_done);
  uint64_t total = job->end - job->start;
  unsigned pct = total > 0 ? (unsigned) (done * 100 / total) : 100;
  unsigned fill = pct * BAR_WIDTH / 100;
  char bar[BAR_WIDTH + 1];
  double t = elapsed ();

  memset (bar, '#', fill);
  memset (bar + fill, '.', BAR_WIDTH - fill);
  bar[BAR_WIDTH] = '\0';
  fprintf (stderr, "\r[%s] %3u%% %.2f/%.2f GiB %.2f GiB/s ", bar, pct,
           (double) done / GIB, (double) total / GIB,
           t > 0 ? (double) done / GIB / t : 0);
}

static void *
progress_main (void *arg)
{
  struct timespec deadline;

  (void) arg;
  pthread_mutex_lock (&lock);
  while (!stopping) {
    draw ();
    clock_gettime (CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += INTERVAL_NS;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
    while (!stopping &&
           pthread_cond_timedwait (&wake, &lock, &deadline) != ETIMEDOUT)
      ;
  }
  draw ();
  fputc ('\n', stderr);
  pthread_mutex_unlock (&lock);
  return NULL;
}

int
progress_start (struct job *j)
{
  int err;

  job = j;
  started = sb_monotonic_seconds ();
  err = pthread_create (&thread, NULL, progress_main, NULL);
  if (err != 0) {
    sb_error ("starting the progress thread: %s", strerror (err));
    return -1;
  }
  running = true;
  return 0;
}

void
progress_stop (void)
{
  if (!running)
    return;
  pthread_mutex_lock (&lock);
  stopping = true;
  pthread_cond_signal (&wake);
  pthread_mutex_unlock (&lock);
  pthread_join (thread, NULL);
  running = false;
}
