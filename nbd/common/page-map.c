/* SPDX-License-Identifier: MIT */
/* Page bitmap: whole words where a range covers them, masks at its ends. */
#include <stddef.h>
#include <sys/mman.h>

#include "page-map.h"

#define WORD_BITS 64

int
sb_page_map_init (struct sb_page_map *m, uint64_t pages)
{
  size_t bytes = (size_t) ((pages + WORD_BITS - 1) / WORD_BITS) * 8;
  void *p = NULL;

  /* NORESERVE anonymous memory reads as zero and costs nothing until
   * written, so a map of a huge sparse export stays small.
   */
  if (bytes > 0) {
    p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return -1;
  }
  m->words = p;
  m->pages = pages;
  return 0;
}

/* The bits of word W that [FIRST, END) covers. */
static uint64_t
mask_in_word (uint64_t w, uint64_t first, uint64_t end)
{
  uint64_t lo = first > w * WORD_BITS ? first - w * WORD_BITS : 0;
  uint64_t hi = end < (w + 1) * WORD_BITS ? end - w * WORD_BITS : WORD_BITS;
  uint64_t below_hi = hi == WORD_BITS ? ~UINT64_C(0)
    : (UINT64_C(1) << hi) - 1;

  return below_hi & ~((UINT64_C(1) << lo) - 1);
}

void
sb_page_map_set (struct sb_page_map *m, uint64_t first, uint64_t count)
{
  uint64_t end = first + count, w;

  for (w = first / WORD_BITS; count > 0 && w * WORD_BITS < end; w++)
    atomic_fetch_or (&m->words[w], mask_in_word (w, first, end));
}

void
sb_page_map_clear (struct sb_page_map *m, uint64_t first, uint64_t count)
{
  uint64_t end = first + count, w;

  for (w = first / WORD_BITS; count > 0 && w * WORD_BITS < end; w++)
    atomic_fetch_and (&m->words[w], ~mask_in_word (w, first, end));
}

uint64_t
sb_page_map_run (const struct sb_page_map *m, uint64_t first, uint64_t limit,
                 bool *set)
{
  uint64_t end = limit < m->pages - first ? first + limit : m->pages;
  uint64_t page = first;
  bool bit = (atomic_load (&m->words[first / WORD_BITS])
              >> (first % WORD_BITS)) & 1;

  *set = bit;
  while (page < end) {
    uint64_t w = page / WORD_BITS;
    uint64_t word = atomic_load (&m->words[w]);
    /* Bits from PAGE on that differ from BIT: the run ends at the first. */
    uint64_t differ = (bit ? ~word : word) >> (page % WORD_BITS);

    if (differ != 0) {
      page += (uint64_t) __builtin_ctzll (differ);
      break;
    }
    page = (w + 1) * WORD_BITS;
  }
  return (page < end ? page : end) - first;
}
