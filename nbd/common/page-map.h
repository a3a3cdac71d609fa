/* SPDX-License-Identifier: MIT */
/* A bitmap of pages, one bit each, safe to update from several threads:
 * which pages of the memory: backend hold data.
 */
#ifndef SOCKBOOST_PAGE_MAP_H
#define SOCKBOOST_PAGE_MAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct sb_page_map {
  _Atomic uint64_t *words;
  uint64_t pages;
};

/* A map of PAGES pages, all clear, from memory the kernel hands out only
 * as it is touched.  0, or -1 with errno set.
 */
extern int sb_page_map_init (struct sb_page_map *m, uint64_t pages);

/* Set or clear pages [FIRST, FIRST + COUNT); the range must lie inside. */
extern void sb_page_map_set (struct sb_page_map *m, uint64_t first,
                             uint64_t count);
extern void sb_page_map_clear (struct sb_page_map *m, uint64_t first,
                               uint64_t count);

/* How many pages from FIRST on (at most LIMIT) have the same bit as
 * FIRST; that bit goes to *SET.  FIRST must lie inside, LIMIT > 0.
 */
extern uint64_t sb_page_map_run (const struct sb_page_map *m, uint64_t first,
                                 uint64_t limit, bool *set);

#endif /* SOCKBOOST_PAGE_MAP_H */
