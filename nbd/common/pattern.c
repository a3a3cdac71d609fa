/* SPDX-License-Identifier: MIT */
/* One table of pattern bytes, long enough for any request at any phase. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "nbd-protocol.h"
#include "pattern.h"

#define TABLE_SIZE (NBD_MAX_PAYLOAD + SB_PATTERN_PERIOD)

static uint8_t *table;
static int table_errno;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void
build_table (void)
{
  void *p = mmap (NULL, TABLE_SIZE, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  size_t i;

  if (p == MAP_FAILED) {
    table_errno = errno;
    return;
  }
  table = p;
  for (i = 0; i < SB_PATTERN_PERIOD; i++)
    table[i] = sb_pattern_byte (i);
  /* Doubling copies fill the rest quickly. */
  for (i = SB_PATTERN_PERIOD; i < TABLE_SIZE; i *= 2)
    memcpy (table + i, table, i <= TABLE_SIZE - i ? i : TABLE_SIZE - i);
  mprotect (table, TABLE_SIZE, PROT_READ);
}

const uint8_t *
sb_pattern_at (uint64_t offset, size_t len)
{
  pthread_once (&table_once, build_table);
  if (table == NULL) {
    errno = table_errno;
    return NULL;
  }
  if (len > NBD_MAX_PAYLOAD) {
    errno = EINVAL;
    return NULL;
  }
  return table + offset % SB_PATTERN_PERIOD;
}

int64_t
sb_pattern_mismatch (const void *buf, uint64_t offset, size_t len)
{
  const uint8_t *bytes = buf;
  size_t done = 0;

  while (done < len) {
    size_t n = len - done < NBD_MAX_PAYLOAD ? len - done : NBD_MAX_PAYLOAD;
    const uint8_t *expected = sb_pattern_at (offset + done, n);
    size_t i;

    if (expected == NULL)
      return (int64_t) done;
    if (memcmp (bytes + done, expected, n) != 0) {
      for (i = 0; bytes[done + i] == expected[i]; i++)
        ;
      return (int64_t) (done + i);
    }
    done += n;
  }
  return -1;
}
