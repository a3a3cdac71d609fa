/* SPDX-License-Identifier: MIT */
/* A fixed pool of NBD framing trackers, one per socket that needs one.
 * The tracker is bigger than a table entry; the entry holds its index.
 */
#ifndef SOCKBOOST_SLOTS_H
#define SOCKBOOST_SLOTS_H

#include "nbd-framing.h"

/* Sockets that can be followed at once; more are simply not corked. */
#define SB_SLOTS 1024

/* Claim a fresh (zeroed) tracker; its index, or -1 when all are taken. */
extern int sb_slot_claim (void);

/* Give slot I back. */
extern void sb_slot_release (int i);

/* Lock slot I and return its tracker; the lock is held only around pure
 * framing calls, never across a system call.
 */
extern struct sb_framing *sb_slot_lock (int i);
extern void sb_slot_unlock (int i);

/* Make fork safe: in the child, a slot lock held by a thread that fork
 * left behind is released and its tracker abandoned.  Call once, from
 * the library's constructor.
 */
extern void sb_slots_fork_safety (void);

#endif /* SOCKBOOST_SLOTS_H */
