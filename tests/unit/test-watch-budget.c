/* SPDX-License-Identifier: MIT */
/* Unit tests for the watcher's share per uid (host/watch-budget.c): a
 * uid that used its share waits for the refill, another uid is not
 * held up by it, and the table stays bounded.
 */
#include <string.h>

#include "tap.h"
#include "watch-budget.h"

#define SECOND 1000000000ull

static void
test_share (void)
{
  struct sb_watch_budgets bs;

  memset (&bs, 0, sizeof bs);
  TAP_OK (sb_watch_budget_left (&bs, 1000, SECOND), "a new uid has time");
  sb_watch_budget_charge (&bs, 1000, 3 * SB_WATCH_LOOKS_PER_SECOND, SECOND);
  TAP_OK (!sb_watch_budget_left (&bs, 1000, SECOND), "in debt: no time left");
  TAP_OK (sb_watch_budget_left (&bs, 0, SECOND), "another uid is not held up");
  TAP_OK (!sb_watch_budget_left (&bs, 1000, 2 * SECOND),
          "one second refills one share, not three");
  TAP_OK (sb_watch_budget_left (&bs, 1000, 3 * SECOND + SECOND / 100),
          "the debt is paid after two seconds and a bit");
  TAP_OK (sb_watch_budget_left (&bs, 1000, 1000 * SECOND) &&
          (sb_watch_budget_charge (&bs, 1000, SB_WATCH_LOOKS_PER_SECOND - 1,
                                   1000 * SECOND),
           sb_watch_budget_left (&bs, 1000, 1000 * SECOND)) &&
          (sb_watch_budget_charge (&bs, 1000, 1, 1000 * SECOND),
           !sb_watch_budget_left (&bs, 1000, 1000 * SECOND)),
          "a long rest saves one share, no more");
}

static void
test_bounded (void)
{
  struct sb_watch_budgets bs;
  int in_debt = 0;

  memset (&bs, 0, sizeof bs);
  /* The first uid in debt, then more uids than the table holds, each
   * seen later: the first is forgotten, and comes back with a share.
   */
  sb_watch_budget_charge (&bs, 1, 10 * SB_WATCH_LOOKS_PER_SECOND, SECOND);
  for (uint32_t uid = 2; uid < 2 + SB_WATCH_MAX_UIDS; uid++)
    sb_watch_budget_left (&bs, uid, SECOND + uid);
  TAP_OK (sb_watch_budget_left (&bs, 1, SECOND + 1000),
          "the least recently seen uid is forgotten when the table is full");
  for (size_t i = 0; i < SB_WATCH_MAX_UIDS; i++)
    in_debt += bs.b[i].used && bs.b[i].looks <= 0;
  TAP_OK (in_debt == 0, "no uid in debt is left after that (%d)", in_debt);
}

int
main (void)
{
  test_share ();
  test_bounded ();
  return tap_done ();
}
