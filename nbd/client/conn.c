/* SPDX-License-Identifier: MIT */
/* One connection: a ring of queue-depth slots, each with a buffer
 * allocated once.  Requests go out until every slot is busy; then each
 * reply frees a slot and the next request goes out in it.  Nothing is
 * allocated per request.
 */
#include <endian.h>
#include <stdlib.h>

#include "clock.h"
#include "client.h"
#include "full-io.h"
#include "nbd-protocol.h"

static int
ring_alloc (struct conn *c)
{
  unsigned i;

  c->nslots = c->job->opt->queue_depth;
  c->slots = calloc (c->nslots, sizeof *c->slots);
  if (c->slots == NULL)
    return job_fail (c->job, "allocating %u slots: %m", c->nslots);
  for (i = 0; i < c->nslots; i++) {
    /* calloc: a zero job sends these buffers as they are. */
    c->slots[i].buf = calloc (1, c->job->request_size);
    if (c->slots[i].buf == NULL)
      return job_fail (c->job, "allocating %u-byte buffers: %m",
                       c->job->request_size);
  }
  return 0;
}

/* Requests still in flight (or done but not yet in order) when the
 * connection ends moved no data.
 */
static void
ring_free (struct conn *c)
{
  unsigned i;

  for (i = 0; c->slots != NULL && i < c->nslots; i++) {
    if (c->slots[i].state != SLOT_FREE)
      job_note_unfinished (c->job, &c->slots[i]);
    free (c->slots[i].buf);
  }
  free (c->slots);
  c->slots = NULL;
}

/* In ordered mode slots are used strictly in turn, so that the oldest
 * request is always at c->head; otherwise any free slot will do.
 */
static struct slot *
free_slot (struct conn *c)
{
  unsigned i;

  if (c->job->ordered) {
    struct slot *s = &c->slots[c->tail];
    if (s->state != SLOT_FREE)
      return NULL;
    c->tail = (c->tail + 1) % c->nslots;
    return s;
  }
  for (i = 0; i < c->nslots; i++)
    if (c->slots[i].state == SLOT_FREE)
      return &c->slots[i];
  return NULL;
}

static int
issue (struct conn *c, struct slot *s, uint16_t type, uint64_t offset,
       uint32_t len)
{
  s->type = type;
  s->offset = offset;
  s->len = len;
  s->got = 0;
  s->seq = ++c->seq;
  s->sent_ns = sb_monotonic_ns ();
  s->state = SLOT_BUSY;
  s->failed = false;
  c->inflight++;
  if (type == NBD_CMD_WRITE && data_prepare (c, s) == -1)
    return -1;
  return request_send (c, s);
}

/* Keep every slot busy while there is work. */
static int
fill (struct conn *c)
{
  uint16_t type = c->job->opt->op == OP_WRITE ? NBD_CMD_WRITE : NBD_CMD_READ;

  while (c->inflight < c->nslots) {
    uint64_t offset;
    uint32_t len;
    struct slot *s = free_slot (c);

    if (s == NULL || !job_take (c->job, &offset, &len))
      return 0;
    if (issue (c, s, type, offset, len) == -1)
      return -1;
  }
  return 0;
}

static int
retire (struct conn *c, struct slot *s)
{
  if (s->type == NBD_CMD_READ && data_finish (c, s) == -1)
    return -1;
  atomic_fetch_add (&c->job->bytes_done, s->len);
  atomic_fetch_add (&c->job->requests, 1);
  s->state = SLOT_FREE;
  c->inflight--;
  return 0;
}

static int
complete (struct conn *c, struct slot *s)
{
  atomic_fetch_add (&c->job->latency_ns, sb_monotonic_ns () - s->sent_ns);
  if (!c->job->ordered)
    return retire (c, s);
  s->state = SLOT_DONE;
  while (c->slots[c->head].state == SLOT_DONE) {
    if (retire (c, &c->slots[c->head]) == -1)
      return -1;
    c->head = (c->head + 1) % c->nslots;
  }
  return 0;
}

/* S's reply came but its data will not be used. */
static void
abandon (struct conn *c, struct slot *s)
{
  job_note_unfinished (c->job, s);
  s->state = SLOT_FREE;
}

/* The job stopped on an error the server answered in good order.
 * Collect the replies this connection is still owed, so that DISC
 * reaches a server with nothing left to send and the socket closes
 * cleanly: closing with replies unread would reset the connection
 * under a server still writing them.
 */
static int
settle (struct conn *c)
{
  for (;;) {
    struct slot *s;
    unsigned i, owed = 0;

    for (i = 0; i < c->nslots; i++)
      if (c->slots[i].state == SLOT_BUSY)
        owed++;
    if (owed == 0)
      return 0;
    if (reply_receive (c, &s) == -1)
      return -1;
    if (s != NULL)
      abandon (c, s);
  }
}

/* Wait for replies until nothing is in flight. */
static int
drain (struct conn *c)
{
  while (c->inflight > 0) {
    struct slot *s;

    if (atomic_load (&c->job->failed))
      return settle (c);
    if (reply_receive (c, &s) == -1)
      return -1;
    if (s != NULL && s->failed)
      abandon (c, s);           /* its data is not to be used */
    else if (s != NULL && complete (c, s) == -1)
      return -1;
    if (fill (c) == -1)
      return -1;
  }
  return 0;
}

/* FLUSH is not data: it goes through a slot but not through retire. */
static int
flush (struct conn *c)
{
  struct slot *s = free_slot (c);

  if (issue (c, s, NBD_CMD_FLUSH, 0, 0) == -1)
    return -1;
  while (c->inflight > 0) {
    struct slot *done;

    if (reply_receive (c, &done) == -1)
      return -1;
    if (done != NULL) {
      done->state = SLOT_FREE;
      c->inflight--;
    }
  }
  if (c->job->ordered)
    c->head = c->tail;
  return 0;
}

int
conn_run (struct conn *c)
{
  int r = ring_alloc (c);

  if (r == 0)
    r = fill (c);
  if (r == 0)
    r = drain (c);
  if (r == 0 && !atomic_load (&c->job->failed))
    r = data_stream_end (c);
  if (r == 0 && c->job->opt->flush && !atomic_load (&c->job->failed) &&
      (c->job->info.eflags & NBD_FLAG_SEND_FLUSH))
    r = flush (c);
  if (r == 0)
    send_disconnect (c->fd, c->job->info.extended);
  ring_free (c);
  return r;
}
