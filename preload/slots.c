/* SPDX-License-Identifier: MIT */
/* Framing slots: static storage claimed with compare-and-swap, so that no
 * hook ever allocates.  Each slot has a spin lock: the framing calls it
 * guards are short and never block, and a send and a receive on one
 * socket from two threads must not update the tracker at the same time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "slots.h"

struct slot {
  _Atomic int used;
  atomic_flag lock;
  struct sb_framing f;
};

static struct slot pool[SB_SLOTS];
static _Atomic unsigned hint;

int
sb_slot_claim (void)
{
  unsigned start = atomic_fetch_add_explicit (&hint, 1, memory_order_relaxed);

  for (unsigned k = 0; k < SB_SLOTS; k++) {
    int i = (int) ((start + k) % SB_SLOTS), expected = 0;
    if (atomic_compare_exchange_strong (&pool[i].used, &expected, 1)) {
      struct sb_framing *f = sb_slot_lock (i);
      memset (f, 0, sizeof *f);
      sb_slot_unlock (i);
      return i;
    }
  }
  return -1;
}

void
sb_slot_release (int i)
{
  if (i >= 0 && i < SB_SLOTS)
    atomic_store (&pool[i].used, 0);
}

struct sb_framing *
sb_slot_lock (int i)
{
  while (atomic_flag_test_and_set_explicit (&pool[i].lock,
                                            memory_order_acquire))
    ;
  return &pool[i].f;
}

void
sb_slot_unlock (int i)
{
  atomic_flag_clear_explicit (&pool[i].lock, memory_order_release);
}

/* Child side of fork: only the forking thread lives on, so a lock still
 * set belongs to a thread that is gone.  Its tracker may be half-updated:
 * turn it off (the next send on that socket drops the slot and logs why).
 */
static void
after_fork_child (void)
{
  for (int i = 0; i < SB_SLOTS; i++) {
    if (atomic_flag_test_and_set_explicit (&pool[i].lock,
                                           memory_order_acquire))
      sb_framing_abandon (&pool[i].f, SB_FRAMING_OFF_ABANDONED);
    atomic_flag_clear_explicit (&pool[i].lock, memory_order_release);
  }
}

void
sb_slots_fork_safety (void)
{
  /* On failure (ENOMEM) forking children may still deadlock: nothing
   * better to do, and the parent is unaffected.
   */
  (void) pthread_atfork (NULL, NULL, after_fork_child);
}
