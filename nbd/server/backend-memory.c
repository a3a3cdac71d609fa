/* SPDX-License-Identifier: MIT */
/* memory:SIZE: a sparse RAM disk.  Pages are allocated by the kernel on
 * first write; trimming and zeroing give whole pages back.  A bitmap of
 * the pages written since (set after the data landed, cleared when a
 * page is given back) is what block status reports as data.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nbd-protocol.h"
#include "server.h"

static uint64_t page_size;

static const void *
mem_at (struct backend *be, uint64_t off)
{
  return be->mem + off;
}

static int
mem_read (struct backend *be, void *buf, uint64_t off, uint32_t len,
          const void **data)
{
  (void) buf; (void) len;
  *data = mem_at (be, off);
  return 0;
}

/* The payload lands in place: no copy at all. */
static void *
mem_write_dest (struct backend *be, uint64_t off)
{
  return be->mem + off;
}

static int
mem_write (struct backend *be, const void *src, uint64_t off, uint32_t len,
           bool fua)
{
  uint64_t first = off / page_size, last = (off + len - 1) / page_size;

  (void) fua;
  if (src != be->mem + off)
    memmove (be->mem + off, src, len);
  sb_page_map_set (&be->written, first, last - first + 1);
  return 0;
}

static int
mem_flush (struct backend *be)
{
  (void) be;
  return 0;
}

/* Zero [off, off+len): memset the partial pages at the edges (they may
 * still hold data elsewhere), give the whole pages in between back to
 * the kernel (they read as zero again: holes).
 */
static int
mem_discard (struct backend *be, uint64_t off, uint64_t len)
{
  uint64_t end = off + len;
  uint64_t first = (off + page_size - 1) / page_size * page_size;
  uint64_t last = end / page_size * page_size;

  if (first >= last) {
    memset (be->mem + off, 0, len);
    return 0;
  }
  memset (be->mem + off, 0, first - off);
  memset (be->mem + last, 0, end - last);
  if (madvise (be->mem + first, last - first, MADV_DONTNEED) == -1) {
    memset (be->mem + first, 0, last - first);
    return 0;
  }
  sb_page_map_clear (&be->written, first / page_size,
                     (last - first) / page_size);
  return 0;
}

static int
mem_trim (struct backend *be, uint64_t off, uint64_t len, bool fua)
{
  (void) fua;
  return mem_discard (be, off, len);
}

/* Always fast: at most two partial pages are written. */
static int
mem_zero (struct backend *be, uint64_t off, uint64_t len, bool may_trim,
          bool fast, bool fua)
{
  (void) may_trim; (void) fast; (void) fua;
  return mem_discard (be, off, len);
}

/* Runs of written and unwritten pages, clipped to [OFF, OFF + LEN). */
static int
mem_extents (struct backend *be, uint64_t off, uint64_t len,
             struct extent_list *out)
{
  uint64_t end = off + len;

  while (off < end && !extent_list_full (out)) {
    uint64_t page = off / page_size;
    uint64_t pages = (end - 1) / page_size - page + 1;
    bool written;
    uint64_t run_end = (page + sb_page_map_run (&be->written, page, pages,
                                                &written)) * page_size;
    uint64_t n = (run_end < end ? run_end : end) - off;

    extent_add (out, n, written ? 0 : NBD_STATE_HOLE | NBD_STATE_ZERO);
    off += n;
  }
  return 0;
}

static const struct backend_ops memory_ops = {
  .read = mem_read, .write_dest = mem_write_dest, .write = mem_write,
  .flush = mem_flush, .trim = mem_trim, .zero = mem_zero,
  .extents = mem_extents,
};

int
backend_open_memory (struct backend *be, uint64_t size)
{
  void *p = MAP_FAILED;

  page_size = (uint64_t) sysconf (_SC_PAGESIZE);
  if (size > 0)
    p = mmap (NULL, size, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if ((size > 0 && p == MAP_FAILED)
      || sb_page_map_init (&be->written,
                           (size + page_size - 1) / page_size) == -1) {
    sb_error ("memory:%llu: %s", (unsigned long long) size,
              strerror (errno));
    return -1;
  }
  be->ops = &memory_ops;
  be->size = size;
  be->mem = size > 0 ? p : NULL;
  return 0;
}
