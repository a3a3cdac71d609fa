/* SPDX-License-Identifier: MIT */
/* Each uid's share of the watcher's time, counted in sockets looked at:
 * a token bucket per uid, refilled at SB_WATCH_LOOKS_PER_SECOND, so that
 * the processes of one user (a process that names itself qemu-nbd and
 * binds in a loop, holding thousands of sockets) cannot make the watcher
 * spin, nor starve the others' events.  Bounded: the least recently seen
 * uid is forgotten when the table is full.
 */
#ifndef SOCKBOOST_HOST_WATCH_BUDGET_H
#define SOCKBOOST_HOST_WATCH_BUDGET_H

#include <stdint.h>

/* The uids whose share is kept. */
#define SB_WATCH_MAX_UIDS 64
/* Sockets a uid's processes may make the watcher look at, a second. */
#define SB_WATCH_LOOKS_PER_SECOND 4096

struct sb_watch_budget {
  uint32_t uid;
  int used;
  double looks;                 /* left; negative: in debt */
  uint64_t at_ns;               /* when last refilled (CLOCK_MONOTONIC) */
};

struct sb_watch_budgets {
  struct sb_watch_budget b[SB_WATCH_MAX_UIDS];
};

/* Whether UID has time left at NOW_NS. */
extern int sb_watch_budget_left (struct sb_watch_budgets *bs, uint32_t uid,
                                 uint64_t now_ns);

/* Charge UID for LOOKS sockets looked at. */
extern void sb_watch_budget_charge (struct sb_watch_budgets *bs, uint32_t uid,
                                    unsigned looks, uint64_t now_ns);

#endif /* SOCKBOOST_HOST_WATCH_BUDGET_H */
