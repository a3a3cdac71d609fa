/* SPDX-License-Identifier: MIT */
/* A fixed pool of NBD framing trackers, one per socket that needs one.
 * The tracker is bigger than a table entry; the entry holds its index and
 * the generation it was claimed in.
 */
#ifndef SOCKBOOST_SLOTS_H
#define SOCKBOOST_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "nbd-framing.h"

/* Sockets that can be followed at once; more are simply not corked. */
#define SB_SLOTS 1024

/* Generations are compared modulo this (the bits a table entry keeps). */
#define SB_SLOT_GEN_MASK 0x3ffu

enum sb_slot_side { SB_SLOT_OUT, SB_SLOT_IN };

/* Claim a fresh tracker; its index (and in *GEN its generation), or -1
 * when none is free.
 */
extern int sb_slot_claim (uint32_t *gen);

/* Give slot I back. */
extern void sb_slot_release (int i);

/* Own SIDE of slot I's tracker, if nobody else does and the slot still
 * is generation GEN; NULL otherwise.  Never waits (slots.c says why).
 * Owned only around pure framing calls, never across a system call.
 */
extern struct sb_framing *sb_slot_enter (int i, uint32_t gen,
                                         enum sb_slot_side side);
extern void sb_slot_leave (int i, enum sb_slot_side side);

/* Turn slot I's tracker off with WHY if it still is generation GEN, from
 * anywhere, owned or not (the slot is not handed out again meanwhile).
 */
extern void sb_slot_abandon (int i, uint32_t gen, enum sb_framing_off why);

/* Give the server tracker F, which owns slot I's outgoing side, a table
 * for its READs in flight: mapped the first time slot I needs one, then
 * kept for the slot's later sockets (never unmapped, so no late caller
 * can touch freed memory).  Without memory, the tracker turns off when a
 * READ comes.
 */
extern void sb_slot_attach_reads (int i, struct sb_framing *f);

/* Child side of fork: a tracker that a thread left behind by fork was
 * inside is abandoned and freed for use.
 */
extern void sb_slots_after_fork_child (void);

#endif /* SOCKBOOST_SLOTS_H */
