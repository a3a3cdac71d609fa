/* SPDX-License-Identifier: MIT */
/* A regular file or a block device. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-protocol.h"
#include "server.h"

/* Zeroes written when the filesystem cannot zero a range by itself. */
#define ZERO_CHUNK 65536
static const uint8_t zero_chunk[ZERO_CHUNK];

static bool is_block_device;

static int
file_read (struct backend *be, void *buf, uint64_t off, uint32_t len,
           const void **data)
{
  if (sb_pread_full (be->fd, buf, len, (off_t) off) == -1)
    return errno == ENODATA ? EIO : errno;  /* ENODATA: the file shrank */
  *data = buf;
  return 0;
}

static void *
file_write_dest (struct backend *be, uint64_t off)
{
  (void) be; (void) off;
  return NULL;
}

static int
file_flush (struct backend *be)
{
  return fdatasync (be->fd) == -1 ? errno : 0;
}

/* 0 or the errno of a failed write, as the backend interface wants. */
static int
pwrite_full (int fd, const void *src, uint64_t off, uint32_t len)
{
  return sb_pwrite_full (fd, src, len, (off_t) off) == -1 ? errno : 0;
}

static int
file_write (struct backend *be, const void *src, uint64_t off, uint32_t len,
            bool fua)
{
  int err = pwrite_full (be->fd, src, off, len);

  if (err == 0 && fua)
    err = file_flush (be);
  return err;
}

static bool
unsupported (int err)
{
  return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL
    || err == ENODEV;
}

/* The range of struct backend that is known to hold data. */
static bool
known_data (struct backend *be, uint64_t off, uint64_t end)
{
  return off >= atomic_load_explicit (&be->data_lo, memory_order_relaxed)
    && end <= atomic_load_explicit (&be->data_hi, memory_order_relaxed);
}

static void
remember_data (struct backend *be, uint64_t lo, uint64_t hi)
{
  atomic_store_explicit (&be->data_lo, lo, memory_order_relaxed);
  atomic_store_explicit (&be->data_hi, hi, memory_order_relaxed);
}

/* After a punch or a zeroed range, so that its holes can be found. */
static void
forget_data (struct backend *be)
{
  atomic_store_explicit (&be->data_hi, 0, memory_order_relaxed);
}

static int
punch (struct backend *be, uint64_t off, uint64_t len)
{
  int r = fallocate (be->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                     (off_t) off, (off_t) len);
  forget_data (be);
  return r == -1 ? errno : 0;
}

/* Trim is advisory: a filesystem that cannot punch holes simply keeps
 * the data.
 */
static int
file_trim (struct backend *be, uint64_t off, uint64_t len, bool fua)
{
  int err = punch (be, off, len);

  if (err != 0 && !unsupported (err))
    return err;
  return fua ? file_flush (be) : 0;
}

static int
write_zeroes (struct backend *be, uint64_t off, uint64_t len)
{
  while (len > 0) {
    uint32_t n = len < ZERO_CHUNK ? (uint32_t) len : ZERO_CHUNK;
    int err = pwrite_full (be->fd, zero_chunk, off, n);
    if (err != 0)
      return err;
    off += n;
    len -= n;
  }
  return 0;
}

/* Fast ways first: punching (when allowed; on a block device it never
 * falls back to writing), then zeroing the range in the filesystem's
 * metadata.  Writing zeroes is slow, so FAST refuses it with ENOTSUP.
 */
static int
zero_range (struct backend *be, uint64_t off, uint64_t len, bool may_trim,
            bool fast)
{
  int err = ENOTSUP;

  if (may_trim || (fast && is_block_device))
    err = punch (be, off, len);
  if (err != 0 && !is_block_device) {
    err = fallocate (be->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
                     (off_t) off, (off_t) len) == -1 ? errno : 0;
    forget_data (be);
  }
  if (err == 0 || !unsupported (err))
    return err;
  return fast ? ENOTSUP : write_zeroes (be, off, len);
}

static int
file_zero (struct backend *be, uint64_t off, uint64_t len, bool may_trim,
           bool fast, bool fua)
{
  int err = zero_range (be, off, len, may_trim, fast);

  if (err == 0 && fua)
    err = file_flush (be);
  return err;
}

/* Where the next data (HOLE false) or hole at or after OFF starts, by
 * lseek; END when there is none before it.  -1 with errno set on error.
 */
static int64_t
seek_next (int fd, uint64_t off, uint64_t end, bool hole)
{
  off_t r = lseek (fd, (off_t) off, hole ? SEEK_HOLE : SEEK_DATA);

  if (r == -1 && errno == ENXIO)
    return (int64_t) end;       /* no data from OFF on: the file shrank */
  if (r == -1)
    return -1;
  return (uint64_t) r < end ? r : (int64_t) end;
}

/* The end of the data that starts at OFF, up to the export's end, which
 * is remembered: the range asked for is often a small part of it.
 */
static int64_t
data_end (struct backend *be, uint64_t off)
{
  int64_t hole = seek_next (be->fd, off, be->size, true);

  if (hole > (int64_t) off)
    remember_data (be, off, (uint64_t) hole);
  return hole;
}

/* lseek failed with errno at OFF: an error, or no way to find holes. */
static int
rest_is_data (struct extent_list *out, uint64_t off, uint64_t end)
{
  if (!unsupported (errno))
    return errno;
  extent_add (out, end - off, 0);
  return 0;
}

/* SEEK_DATA and SEEK_HOLE find the holes (lseek's file position is
 * moved, which no one uses: all I/O is pread and pwrite).  Where they do
 * not work (a block device, an old filesystem) everything is data.
 */
static int
file_extents (struct backend *be, uint64_t off, uint64_t len,
              struct extent_list *out)
{
  uint64_t end = off + len;

  if (known_data (be, off, end)) {
    extent_add (out, len, 0);
    return 0;
  }
  while (off < end && !extent_list_full (out)) {
    int64_t data = seek_next (be->fd, off, end, false), hole;

    if (data == -1)
      return rest_is_data (out, off, end);
    if ((uint64_t) data > off) {
      extent_add (out, (uint64_t) data - off, NBD_STATE_HOLE | NBD_STATE_ZERO);
      off = (uint64_t) data;
      continue;
    }
    hole = data_end (be, off);
    if (hole == -1)
      return rest_is_data (out, off, end);
    /* A hole at OFF itself means the file changed under us: data. */
    if ((uint64_t) hole <= off || (uint64_t) hole > end)
      hole = (int64_t) end;
    extent_add (out, (uint64_t) hole - off, 0);
    off = (uint64_t) hole;
  }
  return 0;
}

static const struct backend_ops file_ops = {
  .read = file_read, .write_dest = file_write_dest, .write = file_write,
  .flush = file_flush, .trim = file_trim, .zero = file_zero,
  .extents = file_extents,
};

/* SHOWN: the file's name, escaped for messages. */
static int
file_size (int fd, const char *shown, uint64_t *size)
{
  struct stat st;

  if (fstat (fd, &st) == -1) {
    sb_error ("%s: fstat: %s", shown, strerror (errno));
    return -1;
  }
  if (S_ISREG (st.st_mode)) {
    *size = (uint64_t) st.st_size;
    return 0;
  }
  if (S_ISBLK (st.st_mode)) {
    is_block_device = true;
    if (ioctl (fd, BLKGETSIZE64, size) == 0)
      return 0;
    sb_error ("%s: BLKGETSIZE64: %s", shown, strerror (errno));
    return -1;
  }
  sb_error ("%s: not a regular file or block device", shown);
  return -1;
}

int
backend_open_file (struct backend *be, const char *path, bool read_only)
{
  int fd = open (path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  char shown[ESCAPED_VALUE_SIZE];

  sb_escape_str (shown, sizeof shown, path);
  if (fd == -1) {
    sb_error ("%s: %s", shown, strerror (errno));
    return -1;
  }
  if (file_size (fd, shown, &be->size) == -1) {
    close (fd);
    return -1;
  }
  be->ops = &file_ops;
  be->fd = fd;
  be->reads_into_buffer = true;
  return 0;
}
