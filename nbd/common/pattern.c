/* SPDX-License-Identifier: MIT */
/* One table of pattern bytes, long enough for any request at any phase.
 *
 * Its address space is reserved whole at first use, but it is filled only
 * as far as the longest request so far needs: filling all 32 MiB touched
 * 8192 fresh pages and took 80 ms here, which a client writing 8 KiB paid
 * inside its timed transfer.  Filled bytes never change, so readers take
 * no lock once the length they ask for is filled: a caller that asks for
 * its longest length first may then call from a signal handler.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "nbd-protocol.h"
#include "pattern.h"

#define TABLE_SIZE (NBD_MAX_PAYLOAD + SB_PATTERN_PERIOD)
/* What the first use fills: a few pages, so small requests never lock. */
#define FIRST_FILL (64 * 1024)

static uint8_t *table;
static int table_errno;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;
/* Bytes of TABLE that hold the pattern; grows, never shrinks. */
static _Atomic size_t filled;

/* Make TABLE hold at least NEED bytes.  Copies double what is there, and
 * what is there is a whole number of periods (until the table's end), so
 * every copy continues the pattern.  Called with FILL_LOCK held, or before
 * any reader can see TABLE.
 */
static void
fill_to (size_t need)
{
  size_t n = atomic_load_explicit (&filled, memory_order_relaxed);

  while (n < need) {
    size_t chunk = n <= TABLE_SIZE - n ? n : TABLE_SIZE - n;
    memcpy (table + n, table, chunk);
    n += chunk;
  }
  atomic_store_explicit (&filled, n, memory_order_release);
}

static void
reserve_table (void)
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
  atomic_store_explicit (&filled, SB_PATTERN_PERIOD, memory_order_relaxed);
  fill_to (FIRST_FILL);
}

const uint8_t *
sb_pattern_at (uint64_t offset, size_t len)
{
  size_t phase = offset % SB_PATTERN_PERIOD;

  pthread_once (&table_once, reserve_table);
  if (table == NULL) {
    errno = table_errno;
    return NULL;
  }
  if (len > NBD_MAX_PAYLOAD) {
    errno = EINVAL;
    return NULL;
  }
  if (atomic_load_explicit (&filled, memory_order_acquire) < phase + len) {
    pthread_mutex_lock (&fill_lock);
    fill_to (phase + len);
    pthread_mutex_unlock (&fill_lock);
  }
  return table + phase;
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
