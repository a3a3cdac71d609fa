/* SPDX-License-Identifier: MIT */
/* The work shared by the connections: a range handed out a request at a
 * time, and a way for any of them to stop all the others.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "client.h"
#include "nbd-protocol.h"

/* Mark the job failed; print the message only for the first failure. */
static void job_mark_failed (struct job *j, const char *fmt, va_list ap)
  __attribute__((format (printf, 2, 0)));

static void
job_mark_failed (struct job *j, const char *fmt, va_list ap)
{
  char line[1024];

  if (atomic_exchange (&j->failed, true))
    return;
  vsnprintf (line, sizeof line, fmt, ap);
  sb_error ("%s", line);
}

int
job_fail (struct job *j, const char *fmt, ...)
{
  va_list ap;
  unsigned i;

  va_start (ap, fmt);
  job_mark_failed (j, fmt, ap);
  va_end (ap);
  /* Wake connections blocked in read or write: their own errors
   * follow from this one and stay unreported.  Shut down even when
   * another connection stopped the job first: a stopped job waits for
   * replies, and this failure may be why they will never come.
   */
  for (i = 0; i < j->connections; i++)
    shutdown (j->fds[i], SHUT_RDWR);
  return -1;
}

void
job_stop (struct job *j, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  job_mark_failed (j, fmt, ap);
  va_end (ap);
}

/* The next piece of the planned data extents, in offset order. */
static bool
take_planned (struct job *j, uint64_t *offset, uint32_t *len)
{
  struct data_extent *e;
  uint64_t left;
  bool found;

  pthread_mutex_lock (&j->data_lock);
  while (j->data_next < j->ndata && j->data_off == j->data[j->data_next].len) {
    j->data_next++;
    j->data_off = 0;
  }
  found = j->data_next < j->ndata;
  if (found) {
    e = &j->data[j->data_next];
    left = e->len - j->data_off;
    *offset = e->off + j->data_off;
    *len = left < j->request_size ? (uint32_t) left : j->request_size;
    j->data_off += *len;
  }
  pthread_mutex_unlock (&j->data_lock);
  return found;
}

void
job_stop_quietly (struct job *j)
{
  atomic_store (&j->failed, true);
}

void
job_end_early (struct job *j)
{
  atomic_store (&j->no_more_work, true);
}

void
job_note_unfinished (struct job *j, const struct slot *s)
{
  uint64_t old = atomic_load (&j->first_unfinished);

  if (s->type != NBD_CMD_READ && s->type != NBD_CMD_WRITE)
    return;
  while (s->offset < old &&
         !atomic_compare_exchange_weak (&j->first_unfinished, &old,
                                        s->offset))
    ;
}

/* Where the ranges handed out end: everything before was handed out
 * (holes left out of a plan need no reading).
 */
static uint64_t
handed_out_end (struct job *j)
{
  uint64_t end = atomic_load (&j->next);

  if (j->planned) {
    pthread_mutex_lock (&j->data_lock);
    end = j->data_next < j->ndata
      ? j->data[j->data_next].off + j->data_off : j->end;
    pthread_mutex_unlock (&j->data_lock);
  }
  return end < j->end ? end : j->end;
}

/* All that was handed out completed, except what was noted unfinished. */
uint64_t
job_done_prefix (struct job *j)
{
  uint64_t end = handed_out_end (j);

  if (atomic_load (&j->first_unfinished) < end)
    end = atomic_load (&j->first_unfinished);
  return end - j->start;
}

bool
job_take (struct job *j, uint64_t *offset, uint32_t *len)
{
  uint64_t off, left;

  if (atomic_load (&j->failed) || atomic_load (&j->no_more_work))
    return false;
  if (j->planned)
    return take_planned (j, offset, len);
  /* Both fit easily: end <= INT64_MAX and the sum grows by at most
   * request_size per call per connection beyond it.
   */
  off = atomic_fetch_add (&j->next, j->request_size);
  if (off >= j->end)
    return false;
  left = j->end - off;
  *offset = off;
  *len = left < j->request_size ? (uint32_t) left : j->request_size;
  return true;
}

struct worker {
  pthread_t thread;
  struct conn conn;
  int status;
};

static void *
worker_main (void *arg)
{
  struct worker *w = arg;

  w->status = conn_run (&w->conn);
  return NULL;
}

int
job_run (struct job *j)
{
  struct worker *workers = calloc (j->connections, sizeof *workers);
  unsigned i, started = 0;
  int status = 0, err;

  if (workers == NULL)
    return job_fail (j, "allocating workers: %m");
  for (i = 0; i < j->connections; i++) {
    workers[i].conn = (struct conn) { .job = j, .fd = j->fds[i], .id = i };
    err = pthread_create (&workers[i].thread, NULL, worker_main, &workers[i]);
    if (err != 0) {
      job_fail (j, "creating a thread: %s", strerror (err));
      break;
    }
    started++;
  }
  for (i = 0; i < started; i++) {
    pthread_join (workers[i].thread, NULL);
    if (workers[i].status == -1)
      status = -1;
  }
  free (workers);
  return started == j->connections ? status : -1;
}
