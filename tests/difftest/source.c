/* SPDX-License-Identifier: MIT */
/* Choices for the differential tester: a seeded generator, or the bytes
 * of a fuzzer's input.
 */
#include <string.h>

#include "difftest.h"

void
dt_source_seed (struct dt_source *s, uint64_t seed)
{
  memset (s, 0, sizeof *s);
  /* splitmix64 of the seed: neighbouring seeds start far apart. */
  seed += UINT64_C (0x9e3779b97f4a7c15);
  seed = (seed ^ (seed >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  seed = (seed ^ (seed >> 27)) * UINT64_C (0x94d049bb133111eb);
  s->state = (seed ^ (seed >> 31)) | 1;
}

void
dt_source_data (struct dt_source *s, const uint8_t *data, size_t size)
{
  memset (s, 0, sizeof *s);
  s->data = data;
  s->size = size;
  s->from_data = true;
}

/* xorshift64*, or the next 4 input bytes. */
static uint32_t
next32 (struct dt_source *s)
{
  uint32_t v = 0;

  if (s->from_data) {
    for (int i = 0; i < 4; i++) {
      if (s->pos < s->size)
        v = v << 8 | s->data[s->pos++];
      else
        s->exhausted = true;
    }
    return v;
  }
  s->state ^= s->state >> 12;
  s->state ^= s->state << 25;
  s->state ^= s->state >> 27;
  return (uint32_t) ((s->state * UINT64_C (0x2545f4914f6cdd1d)) >> 32);
}

/* From input bytes, one byte decides a small choice: the fuzzer then
 * maps its mutations onto choices one to one.
 */
unsigned
dt_pick (struct dt_source *s, unsigned n)
{
  if (n <= 1)
    return 0;
  if (s->from_data && n <= 256) {
    if (s->pos < s->size)
      return s->data[s->pos++] % n;
    s->exhausted = true;
    return 0;
  }
  return next32 (s) % n;
}

bool
dt_one_in (struct dt_source *s, unsigned n)
{
  return dt_pick (s, n) == 0;
}

/* The sizes that matter to the library: NBD headers (16, 20, 28, 32)
 * with their fixed fields, a byte on either side, and any size.
 */
size_t
dt_length (struct dt_source *s, size_t max)
{
  static const size_t sizes[] = { 1, 4, 8, 15, 16, 17, 20, 27, 28, 29, 32,
                                  36, 40, 64, 512, 4096 };
  size_t n;

  if (dt_pick (s, 2) == 0)
    n = sizes[dt_pick (s, sizeof sizes / sizeof sizes[0])];
  else
    n = 1 + dt_pick (s, (unsigned) (max < 65536 ? max : 65536));
  return n > max ? max : n;
}

void
dt_fill (struct dt_source *s, void *buf, size_t len)
{
  uint8_t *p = buf;

  /* Input bytes are for choices; payload comes from the generator. */
  if (s->from_data) {
    for (size_t i = 0; i < len; i++)
      p[i] = (uint8_t) (i * 131 + s->pos);
    return;
  }
  for (size_t i = 0; i < len; i++)
    p[i] = (uint8_t) next32 (s);
}
