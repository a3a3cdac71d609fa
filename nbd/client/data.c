/* SPDX-License-Identifier: MIT */
/* Where WRITE data comes from and where READ data goes. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "full-io.h"
#include "pattern.h"

int
data_prepare (struct conn *c, struct slot *s)
{
  struct job *j = c->job;

  switch (j->opt->source) {
  case SRC_PATTERN:
    /* Straight from the shared table: nothing is copied. */
    s->payload = sb_pattern_at (s->offset, s->len);
    if (s->payload == NULL)
      return job_fail (j, "pattern table: %m");
    return 0;
  case SRC_ZERO:
    /* The buffers of a zero job are allocated zeroed and never written. */
    s->payload = s->buf;
    return 0;
  default:
    s->payload = s->buf;
    if (sb_pread_full (j->file_fd, s->buf, s->len,
                    (off_t) (s->offset - j->start)) == -1)
      return job_fail (j, "reading %s at offset %llu: %s",
                       j->opt->shown_path,
                       (unsigned long long) (s->offset - j->start),
                       errno == ENODATA ? "file is shorter than expected"
                       : strerror (errno));
    return 0;
  }
}

/* Keep the lowest mismatch seen by any connection, and read no further:
 * the requests in flight still complete, so one at a lower offset is
 * still checked and the mismatch reported is the export's first.
 */
static void
note_mismatch (struct job *j, uint64_t offset, uint8_t found)
{
  pthread_mutex_lock (&j->mismatch_lock);
  if (offset < j->mismatch_offset) {
    j->mismatch_offset = offset;
    j->mismatch_found = found;
  }
  pthread_mutex_unlock (&j->mismatch_lock);
  job_end_early (j);
}

/* A reader of stdout that went away (`read - | head`) is no error: the
 * job ends quietly, as cat would, collecting the replies in flight and
 * disconnecting in good order.
 */
static int
stream_write_failed (struct job *j)
{
  if (errno == EPIPE && j->file_fd == 1) {
    atomic_store (&j->stdout_closed, true);
    job_stop_quietly (j);
    return 0;
  }
  return job_fail (j, "writing %s: %m",
                   j->file_fd == 1 ? "stdout" : j->opt->shown_path);
}

/* Zeroes for the holes a stream skipped, up to offset UPTO of the range. */
static int
stream_catch_up (struct job *j, uint64_t upto)
{
  static const uint8_t zeroes[65536];

  while (j->stream_pos < upto) {
    uint64_t n = upto - j->stream_pos;
    if (n > sizeof zeroes)
      n = sizeof zeroes;
    if (sb_write_full (j->file_fd, zeroes, (size_t) n, 0) == -1)
      return stream_write_failed (j);
    j->stream_pos += n;
  }
  return 0;
}

int
data_stream_end (struct conn *c)
{
  struct job *j = c->job;

  if (j->sink != SINK_STREAM)
    return 0;
  return stream_catch_up (j, j->end - j->start);
}

int
data_finish (struct conn *c, struct slot *s)
{
  struct job *j = c->job;
  int64_t bad;

  switch (j->sink) {
  case SINK_FILE:
    if (sb_pwrite_full (j->file_fd, s->buf, s->len,
                     (off_t) (s->offset - j->start)) == -1)
      return job_fail (j, "writing %s: %m", j->opt->shown_path);
    break;
  case SINK_STREAM:
    /* One ordered connection: slots retire in offset order. */
    if (stream_catch_up (j, s->offset - j->start) == -1)
      return -1;
    if (sb_write_full (j->file_fd, s->buf, s->len, 0) == -1)
      return stream_write_failed (j);
    j->stream_pos += s->len;
    break;
  case SINK_VERIFY:
    bad = sb_pattern_mismatch (s->buf, s->offset, s->len);
    if (bad >= 0)
      note_mismatch (j, s->offset + (uint64_t) bad, s->buf[bad]);
    break;
  case SINK_DISCARD:
    break;
  }
  return 0;
}
