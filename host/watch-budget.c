/* SPDX-License-Identifier: MIT */
/* Each uid's share of the watcher's time (watch-budget.h). */
#include <stddef.h>

#include "watch-budget.h"

static struct sb_watch_budget *
budget_of (struct sb_watch_budgets *bs, uint32_t uid, uint64_t now_ns)
{
  struct sb_watch_budget *b = NULL, *oldest = &bs->b[0];

  for (size_t i = 0; i < SB_WATCH_MAX_UIDS && b == NULL; i++) {
    struct sb_watch_budget *c = &bs->b[i];
    if (c->used && c->uid == uid)
      b = c;
    else if (!c->used || (oldest->used && c->at_ns < oldest->at_ns))
      oldest = c;
  }
  if (b == NULL) {
    b = oldest;
    *b = (struct sb_watch_budget) { .uid = uid, .used = 1,
                                    .looks = SB_WATCH_LOOKS_PER_SECOND,
                                    .at_ns = now_ns };
  }
  if (now_ns > b->at_ns)
    b->looks += (double) (now_ns - b->at_ns) / 1e9 * SB_WATCH_LOOKS_PER_SECOND;
  if (b->looks > SB_WATCH_LOOKS_PER_SECOND)
    b->looks = SB_WATCH_LOOKS_PER_SECOND;
  b->at_ns = now_ns;
  return b;
}

int
sb_watch_budget_left (struct sb_watch_budgets *bs, uint32_t uid,
                      uint64_t now_ns)
{
  return budget_of (bs, uid, now_ns)->looks > 0;
}

void
sb_watch_budget_charge (struct sb_watch_budgets *bs, uint32_t uid,
                        unsigned looks, uint64_t now_ns)
{
  budget_of (bs, uid, now_ns)->looks -= looks;
}
