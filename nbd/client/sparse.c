/* SPDX-License-Identifier: MIT */
/* read with block status: map the range first and read only its data
 * extents.  The holes stay holes in a regular output file (which takes
 * the range's size when the read completes), are written as zeroes to a
 * stream, and are nothing to discard.  A block device output is read in
 * full: its old contents would show through the holes.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "client.h"
#include "nbd-protocol.h"

/* Data extents kept at most (16 MiB); past that the rest is read whole. */
#define MAX_DATA_EXTENTS (1 << 20)
/* The range is mapped this much at a time, so that a full list stops
 * the mapping early.
 */
#define PLAN_WINDOW (UINT64_C(64) << 30)

struct plan {
  struct job *j;
  uint64_t pos;                 /* offset of the next extent */
  size_t max;
};

static void
add_extent (void *opaque, uint64_t len, uint32_t flags)
{
  struct plan *p = opaque;
  struct job *j = p->j;
  struct data_extent *last = j->ndata ? &j->data[j->ndata - 1] : NULL;

  if (flags & NBD_STATE_ZERO)
    j->hole_bytes += len;
  else if (last != NULL && last->off + last->len == p->pos)
    last->len += len;
  else if (j->ndata < p->max)
    j->data[j->ndata++] = (struct data_extent) { .off = p->pos, .len = len };
  else {
    /* Full: read across the holes since the last extent instead. */
    j->hole_bytes -= p->pos - (last->off + last->len);
    last->len = p->pos + len - last->off;
  }
  p->pos += len;
}

static bool
worth_planning (const struct job *j)
{
  struct stat st;

  if (!j->info.allocation || j->sink == SINK_VERIFY)
    return false;
  return j->sink != SINK_FILE ||
    (fstat (j->file_fd, &st) == 0 && S_ISREG (st.st_mode));
}

int
sparse_plan (struct job *j)
{
  struct plan p = { .j = j, .pos = j->start, .max = MAX_DATA_EXTENTS };
  uint64_t end;

  if (!worth_planning (j))
    return 0;
  j->data = malloc (MAX_DATA_EXTENTS * sizeof *j->data);
  if (j->data == NULL)
    return job_fail (j, "allocating the extent list: %m");
  pthread_mutex_init (&j->data_lock, NULL);
  while (p.pos < j->end && j->ndata < p.max) {
    end = j->end - p.pos > PLAN_WINDOW ? p.pos + PLAN_WINDOW : j->end;
    if (status_walk (j, p.pos, end, add_extent, &p) == -1)
      return -1;
  }
  if (p.pos < j->end)
    add_extent (&p, j->end - p.pos, 0);
  j->planned = true;
  atomic_fetch_add (&j->bytes_done, j->hole_bytes);
  return 0;
}
