/* SPDX-License-Identifier: MIT */
/* null:SIZE and pattern:SIZE: contents computed, never stored; writes,
 * trims and zeroes are accepted and discarded (nothing would keep them).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "nbd-protocol.h"
#include "pattern.h"
#include "server.h"

/* Where the null backend reads from: read-only anonymous memory, which
 * the kernel backs with its one shared zero page, so it costs no RAM.
 */
static const uint8_t *zeroes;

static int
null_read (struct backend *be, void *buf, uint64_t off, uint32_t len,
           const void **data)
{
  (void) be; (void) buf; (void) off; (void) len;
  *data = zeroes;
  return 0;
}

static int
pattern_read (struct backend *be, void *buf, uint64_t off, uint32_t len,
              const void **data)
{
  (void) be; (void) buf;
  *data = sb_pattern_at (off, len);
  return *data == NULL ? errno : 0;
}

/* The payload must still be read off the socket; the connection buffer
 * takes it.
 */
static void *
discard_dest (struct backend *be, uint64_t off)
{
  (void) be; (void) off;
  return NULL;
}

static int
discard_write (struct backend *be, const void *src, uint64_t off,
               uint32_t len, bool fua)
{
  (void) be; (void) src; (void) off; (void) len; (void) fua;
  return 0;
}

static int
discard_flush (struct backend *be)
{
  (void) be;
  return 0;
}

static int
discard_trim (struct backend *be, uint64_t off, uint64_t len, bool fua)
{
  (void) be; (void) off; (void) len; (void) fua;
  return 0;
}

/* Instant, so FAST_ZERO is honestly satisfied. */
static int
discard_zero (struct backend *be, uint64_t off, uint64_t len, bool may_trim,
              bool fast, bool fua)
{
  (void) be; (void) off; (void) len; (void) may_trim; (void) fast; (void) fua;
  return 0;
}

/* null: is one hole that reads as zeroes, pattern: all data. */
static int
null_extents (struct backend *be, uint64_t off, uint64_t len,
              struct extent_list *out)
{
  (void) be; (void) off;
  extent_add (out, len, NBD_STATE_HOLE | NBD_STATE_ZERO);
  return 0;
}

static int
pattern_extents (struct backend *be, uint64_t off, uint64_t len,
                 struct extent_list *out)
{
  (void) be; (void) off;
  extent_add (out, len, 0);
  return 0;
}

static const struct backend_ops null_ops = {
  .read = null_read, .write_dest = discard_dest, .write = discard_write,
  .flush = discard_flush, .trim = discard_trim, .zero = discard_zero,
  .extents = null_extents,
};

static const struct backend_ops pattern_ops = {
  .read = pattern_read, .write_dest = discard_dest, .write = discard_write,
  .flush = discard_flush, .trim = discard_trim, .zero = discard_zero,
  .extents = pattern_extents,
};

int
backend_open_null (struct backend *be, uint64_t size)
{
  void *p = mmap (NULL, NBD_MAX_PAYLOAD, PROT_READ,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (p == MAP_FAILED) {
    sb_error ("null: mapping zeroes: %s", strerror (errno));
    return -1;
  }
  zeroes = p;
  be->ops = &null_ops;
  be->size = size;
  return 0;
}

int
backend_open_pattern (struct backend *be, uint64_t size)
{
  /* Build the table now so that a failure shows at start-up. */
  if (sb_pattern_at (0, 0) == NULL) {
    sb_error ("pattern: building the table: %s", strerror (errno));
    return -1;
  }
  be->ops = &pattern_ops;
  be->size = size;
  return 0;
}
