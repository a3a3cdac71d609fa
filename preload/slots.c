/* SPDX-License-Identifier: MIT */
/* Framing slots: static storage claimed with compare-and-swap, so that no
 * hook ever allocates (a server's table of READs aside, mapped once).
 *
 * Why nothing here ever waits.  A hooked call can run inside a signal
 * handler that interrupted its own thread in the middle of the same
 * socket's tracker, and a thread can be preempted there for as long as
 * the scheduler likes: a lock that waits deadlocks in the first case and
 * burns a core in the second.  So each direction of a tracker has a claim
 * word that a hook takes with one compare-and-swap or not at all.  The
 * sending and the receiving side have separate words and share nothing
 * that needs one (nbd-framing.h), so a server's reader and writer threads
 * never meet here.  Two hooks meet on one side only when two threads send
 * (or receive) on one socket at the same moment without the program
 * serialising them, or when a signal handler sends while its thread was
 * inside the tracker.  The order in which those bytes reach the wire is
 * then not something the tracker can know, so the late hook makes the
 * plain call (no MSG_MORE) and turns the tracker off for that socket
 * rather than guess.
 *
 * A slot is reused by later sockets.  A hook that still holds the old
 * socket's table entry (the socket was closed by another thread during
 * its system call) must not touch the new socket's tracker: the entry
 * carries the slot's generation, checked after the side is claimed, and a
 * slot is handed out again only when neither side is claimed.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "fdtable.h"
#include "slots.h"

struct slot {
  _Atomic int used;
  _Atomic uint32_t gen;
  _Atomic int claimed[2];       /* enum sb_slot_side */
  _Atomic int visitors;         /* hooks turning the tracker off */
  struct sb_reads *reads;       /* mapped on first need, kept */
  struct sb_framing f;
};

_Static_assert (SB_SLOTS < 0x7ff, "a table entry holds slot + 1 in 11 bits");
_Static_assert (!(SB_FD_GEN_MASK & (SB_FD_SLOT_MASK | SB_FD_NOINPUT)),
                "table entry fields overlap");
_Static_assert (SB_SLOT_GEN_MASK == SB_FD_GEN_MASK >> SB_FD_GEN_SHIFT,
                "a table entry holds the generation's low bits");

static struct slot pool[SB_SLOTS];
static _Atomic unsigned hint;

/* A fresh tracker, keeping the slot's table of READs for later. */
static void
reset (struct slot *s)
{
  memset (&s->f, 0, sizeof s->f);
}

/* Slot I just taken: new generation, then make sure no late hook of the
 * old one is inside (one that enters later sees the new generation).
 */
static int
take (int i, uint32_t *gen)
{
  struct slot *s = &pool[i];
  uint32_t g = atomic_fetch_add (&s->gen, 1) + 1;

  if (atomic_load (&s->claimed[SB_SLOT_OUT])
      || atomic_load (&s->claimed[SB_SLOT_IN])
      || atomic_load (&s->visitors)) {
    atomic_store (&s->used, 0);
    return -1;
  }
  reset (s);
  *gen = g & SB_SLOT_GEN_MASK;
  return i;
}

int
sb_slot_claim (uint32_t *gen)
{
  unsigned start = atomic_fetch_add_explicit (&hint, 1, memory_order_relaxed);

  for (unsigned k = 0; k < SB_SLOTS; k++) {
    int i = (int) ((start + k) % SB_SLOTS), expected = 0;
    if (atomic_compare_exchange_strong (&pool[i].used, &expected, 1)
        && take (i, gen) == i)
      return i;
  }
  return -1;
}

void
sb_slot_release (int i)
{
  if (i >= 0 && i < SB_SLOTS)
    atomic_store (&pool[i].used, 0);
}

static bool
is_gen (const struct slot *s, uint32_t gen)
{
  return (atomic_load (&s->gen) & SB_SLOT_GEN_MASK) == gen;
}

struct sb_framing *
sb_slot_enter (int i, uint32_t gen, enum sb_slot_side side)
{
  struct slot *s = &pool[i];
  int free = 0;

  if (!atomic_compare_exchange_strong (&s->claimed[side], &free, 1))
    return NULL;
  if (is_gen (s, gen))
    return &s->f;
  atomic_store_explicit (&s->claimed[side], 0, memory_order_release);
  return NULL;
}

void
sb_slot_leave (int i, enum sb_slot_side side)
{
  atomic_store_explicit (&pool[i].claimed[side], 0, memory_order_release);
}

/* Counted in, like a side claimed, so that take() waits for nothing and
 * never resets the tracker under this write.
 */
void
sb_slot_abandon (int i, uint32_t gen, enum sb_framing_off why)
{
  struct slot *s = &pool[i];

  if (i < 0 || i >= SB_SLOTS)
    return;
  atomic_fetch_add (&s->visitors, 1);
  if (is_gen (s, gen))
    sb_framing_abandon (&s->f, why);
  atomic_fetch_sub (&s->visitors, 1);
}

void
sb_slot_attach_reads (int i, struct sb_framing *f)
{
  struct slot *s = &pool[i];

  if (s->reads == NULL) {
    void *p = mmap (NULL, sizeof *s->reads, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return;
    s->reads = p;
  }
  sb_framing_attach_reads (f, s->reads);
}

/* Child side of fork: only the forking thread lives on, so a side still
 * claimed belongs to a thread that is gone.  Its tracker may be
 * half-updated: turn it off (the next call on that socket drops the slot
 * and logs why) and free the side.
 */
void
sb_slots_after_fork_child (void)
{
  for (int i = 0; i < SB_SLOTS; i++) {
    struct slot *s = &pool[i];
    if (atomic_load (&s->claimed[SB_SLOT_OUT])
        || atomic_load (&s->claimed[SB_SLOT_IN])
        || atomic_load (&s->visitors))
      sb_framing_abandon (&s->f, SB_FRAMING_OFF_ABANDONED);
    atomic_store (&s->claimed[SB_SLOT_OUT], 0);
    atomic_store (&s->claimed[SB_SLOT_IN], 0);
    atomic_store (&s->visitors, 0);
  }
}
