/* SPDX-License-Identifier: MIT */
/* NBD framing tracker: the READs in flight on a server in simple-reply
 * mode, where a reply says nothing of its length.  The receiving side
 * adds each READ as it reads the request, the sending side takes it out
 * as it sends the reply: one writer per cell state change, no lock, no
 * allocation (the table is the caller's), any number of READs up to the
 * table's room.
 */
#include <string.h>

#include "nbd-framing-impl.h"

#define CELL_BITS 12
#define CELL_MASK (SB_READS_CELLS - 1)

_Static_assert (SB_READS_CELLS == 1 << CELL_BITS, "cells: 2^CELL_BITS");

/* Fibonacci hashing: sequential and pointer-like cookies spread evenly. */
static unsigned
home (uint64_t cookie)
{
  return (unsigned) ((cookie * UINT64_C (0x9e3779b97f4a7c15))
                     >> (64 - CELL_BITS));
}

static struct sb_reads *
table (const struct sb_framing *f)
{
  return atomic_load_explicit (&f->reads, memory_order_acquire);
}

static bool
answered (const struct sb_framing_ctx *c, int i)
{
  for (unsigned k = 0; k < c->nanswered; k++)
    if (c->answered[k] == i)
      return true;
  return false;
}

/* The cell holding COOKIE, or -1.  A cell never used ends the search: a
 * READ is always put in the first free cell from its home.
 */
static int
find (const struct sb_framing_ctx *c, const struct sb_reads *t,
      uint64_t cookie)
{
  unsigned h = home (cookie);

  for (unsigned k = 0; k < SB_READS_PROBE; k++) {
    int i = (int) ((h + k) & CELL_MASK);
    uint32_t seq = atomic_load_explicit (&t->cell[i].seq,
                                         memory_order_acquire);
    if (seq == 0)
      break;
    if ((seq & 1) && t->cell[i].cookie == cookie && !answered (c, i))
      return i;
  }
  return -1;
}

uint8_t
sb_framing_reads_add (struct sb_framing_ctx *c, uint64_t cookie, uint32_t len)
{
  struct sb_reads *t = table (c->f);
  unsigned h = home (cookie);
  int free_cell = -1;

  if (t == NULL)
    return SB_FRAMING_OFF_NO_TABLE;
  for (unsigned k = 0; k < SB_READS_PROBE; k++) {
    int i = (int) ((h + k) & CELL_MASK);
    uint32_t seq = atomic_load_explicit (&t->cell[i].seq,
                                         memory_order_acquire);
    if ((seq & 1) && t->cell[i].cookie == cookie)
      return SB_FRAMING_OFF_DUP_COOKIE;
    if (!(seq & 1) && free_cell < 0)
      free_cell = i;
    if (seq == 0)
      break;
  }
  if (free_cell < 0)
    return SB_FRAMING_OFF_COOKIES_FULL;
  atomic_store_explicit (&t->dirty, true, memory_order_relaxed);
  t->cell[free_cell].cookie = cookie;
  t->cell[free_cell].len = len;
  atomic_fetch_add_explicit (&t->cell[free_cell].seq, 1,
                             memory_order_release);
  return SB_FRAMING_ON;
}

/* A dry run only notes the cell, so that a second reply with the same
 * cookie in the same pass misses it; past its room it gives up.
 */
uint8_t
sb_framing_reads_answer (struct sb_framing_ctx *c, uint64_t cookie,
                         uint64_t *len)
{
  struct sb_reads *t = table (c->f);
  int i = t ? find (c, t, cookie) : -1;

  *len = 0;
  if (i < 0)
    return SB_FRAMING_ON;
  *len = t->cell[i].len;
  if (c->w)
    atomic_fetch_add_explicit (&t->cell[i].seq, 1, memory_order_release);
  else if (c->nanswered < SB_FRAMING_DRY_ANSWERS)
    c->answered[c->nanswered++] = i;
  else {
    c->gave_up = true;          /* stops the pass; never stored */
    return SB_FRAMING_OFF_COOKIES_FULL;
  }
  return SB_FRAMING_ON;
}

bool
sb_framing_needs_reads (const struct sb_framing *f)
{
  return atomic_load_explicit (&f->role, memory_order_relaxed)
    == SB_FRAMING_ROLE_SERVER && table (f) == NULL;
}

void
sb_framing_attach_reads (struct sb_framing *f, struct sb_reads *t)
{
  if (atomic_load_explicit (&t->dirty, memory_order_relaxed))
    memset (t, 0, sizeof *t);
  atomic_store_explicit (&f->reads, t, memory_order_release);
}

unsigned
sb_framing_reads_in_flight (const struct sb_framing *f)
{
  const struct sb_reads *t = table (f);
  unsigned n = 0;

  for (int i = 0; t && i < SB_READS_CELLS; i++)
    n += atomic_load_explicit (&t->cell[i].seq, memory_order_relaxed) & 1;
  return n;
}
