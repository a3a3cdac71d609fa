/* SPDX-License-Identifier: MIT */
/* Unit tests for the page bitmap behind memory: block status. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "page-map.h"

#define PAGES 1000

static bool model[PAGES];

/* Does the map agree with MODEL everywhere, run by run? */
static bool
agrees (const struct sb_page_map *m)
{
  uint64_t p, i;

  for (p = 0; p < PAGES; p++) {
    bool set;
    uint64_t n = sb_page_map_run (m, p, PAGES, &set);
    if (n == 0 || p + n > PAGES || set != model[p])
      return false;
    for (i = p; i < p + n; i++)
      if (model[i] != set)
        return false;
    if (p + n < PAGES && model[p + n] == set)
      return false;             /* the run stopped too early */
  }
  return true;
}

int
main (void)
{
  struct sb_page_map m;
  bool set, ok = true;
  unsigned round;

  TAP_OK (sb_page_map_init (&m, PAGES) == 0, "a map of %d pages", PAGES);
  TAP_OK (sb_page_map_run (&m, 0, PAGES, &set) == PAGES && !set,
          "a new map is one clear run");
  sb_page_map_set (&m, 63, 2);
  TAP_OK (sb_page_map_run (&m, 0, PAGES, &set) == 63 && !set,
          "clear run ends at a set bit at the end of a word");
  TAP_OK (sb_page_map_run (&m, 63, PAGES, &set) == 2 && set,
          "a set run crosses a word boundary");
  TAP_OK (sb_page_map_run (&m, 65, 10, &set) == 10 && !set,
          "a run stops at its limit");
  TAP_OK (sb_page_map_run (&m, 999, 5, &set) == 1,
          "a run stops at the end of the map");
  sb_page_map_set (&m, 0, PAGES);
  TAP_OK (sb_page_map_run (&m, 1, PAGES, &set) == PAGES - 1 && set,
          "setting everything gives one set run");
  sb_page_map_clear (&m, 0, PAGES);
  sb_page_map_set (&m, 5, 0);
  TAP_OK (sb_page_map_run (&m, 0, PAGES, &set) == PAGES && !set,
          "clearing everything, then an empty set, gives one clear run");

  srand (1);
  for (round = 0; round < 2000 && ok; round++) {
    uint64_t first = (uint64_t) rand () % PAGES;
    uint64_t count = (uint64_t) rand () % (PAGES - first + 1), i;
    bool on = rand () % 2;

    if (on)
      sb_page_map_set (&m, first, count);
    else
      sb_page_map_clear (&m, first, count);
    for (i = first; i < first + count; i++)
      model[i] = on;
    ok = agrees (&m);
  }
  TAP_OK (ok, "2000 random sets and clears agree with a plain array");
  return tap_done ();
}
