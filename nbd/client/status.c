/* SPDX-License-Identifier: MIT */
/* Walking an export's base:allocation extents with NBD_CMD_BLOCK_STATUS,
 * one request at a time on the job's first connection, through the same
 * reply parser as the transfers.
 */
#include "client.h"
#include "nbd-protocol.h"

struct walk {
  extent_fn fn;
  void *opaque;
  uint64_t pos;                 /* where the next extent starts */
  uint64_t end;                 /* the end of the current request */
};

/* An extent may reach past the request (the last one may): clip it. */
static void
walk_extent (void *opaque, uint64_t len, uint32_t flags)
{
  struct walk *w = opaque;
  uint64_t left = w->end - w->pos;

  if (left == 0)
    return;
  if (len > left)
    len = left;
  w->fn (w->opaque, len, flags);
  w->pos += len;
}

/* Compact requests carry 32-bit lengths: the most that keeps to the
 * server's minimum block size.
 */
static uint64_t
longest_request (const struct export_info *info)
{
  uint64_t most = UINT32_MAX;

  if (info->extended)
    return UINT64_MAX;
  if (info->have_block_size)
    most -= most % info->min_block;
  return most;
}

/* Send one BLOCK_STATUS for [W->pos, W->end) and read its reply. */
static int
query (struct conn *c, struct slot *s, struct walk *w)
{
  struct slot *done = NULL;

  *s = (struct slot) { .type = NBD_CMD_BLOCK_STATUS, .offset = w->pos,
                       .status_len = w->end - w->pos, .seq = ++c->seq,
                       .state = SLOT_BUSY };
  if (request_send (c, s) == -1)
    return -1;
  while (done == NULL)
    if (reply_receive (c, &done) == -1)
      return -1;
  s->state = SLOT_FREE;
  /* An error reply was reported (job_stop); the walk ends there. */
  return s->failed ? -1 : 0;
}

int
status_walk (struct job *j, uint64_t start, uint64_t end, extent_fn fn,
             void *opaque)
{
  struct slot slot;
  struct conn c = { .job = j, .fd = j->fds[0], .slots = &slot, .nslots = 1,
                    .inflight = 1, .on_extent = walk_extent };
  struct walk w = { .fn = fn, .opaque = opaque, .pos = start };
  uint64_t most = longest_request (&j->info);

  c.extent_opaque = &w;
  while (w.pos < end) {
    w.end = end - w.pos > most ? w.pos + most : end;
    if (query (&c, &slot, &w) == -1)
      return -1;
  }
  return 0;
}
