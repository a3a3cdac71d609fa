/* SPDX-License-Identifier: MIT */
/* memory:SIZE: a sparse RAM disk.  Pages are allocated by the kernel on
 * first write; trimming and zeroing give whole pages back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server.h"

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
  (void) fua;
  if (src != be->mem + off)
    memmove (be->mem + off, src, len);
  return 0;
}

static int
mem_flush (struct backend *be)
{
  (void) be;
  return 0;
}

/* Zero [off, off+len): memset the partial pages at the edges, give the
 * whole pages in between back to the kernel (they read as zero again).
 */
static int
mem_discard (struct backend *be, uint64_t off, uint32_t len)
{
  uint64_t page = (uint64_t) sysconf (_SC_PAGESIZE);
  uint64_t end = off + len;
  uint64_t first = (off + page - 1) / page * page;
  uint64_t last = end / page * page;

  if (first >= last) {
    memset (be->mem + off, 0, len);
    return 0;
  }
  memset (be->mem + off, 0, first - off);
  memset (be->mem + last, 0, end - last);
  if (madvise (be->mem + first, last - first, MADV_DONTNEED) == -1)
    memset (be->mem + first, 0, last - first);
  return 0;
}

static int
mem_trim (struct backend *be, uint64_t off, uint32_t len, bool fua)
{
  (void) fua;
  return mem_discard (be, off, len);
}

/* Always fast: at most two partial pages are written. */
static int
mem_zero (struct backend *be, uint64_t off, uint32_t len, bool may_trim,
          bool fast, bool fua)
{
  (void) may_trim; (void) fast; (void) fua;
  return mem_discard (be, off, len);
}

static const struct backend_ops memory_ops = {
  .read = mem_read, .write_dest = mem_write_dest, .write = mem_write,
  .flush = mem_flush, .trim = mem_trim, .zero = mem_zero,
};

int
backend_open_memory (struct backend *be, uint64_t size)
{
  void *p = MAP_FAILED;

  if (size > 0)
    p = mmap (NULL, size, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (size > 0 && p == MAP_FAILED) {
    fprintf (stderr, "%s: memory:%llu: %s\n", PROGRAM,
             (unsigned long long) size, strerror (errno));
    return -1;
  }
  be->ops = &memory_ops;
  be->size = size;
  be->mem = size > 0 ? p : NULL;
  return 0;
}
