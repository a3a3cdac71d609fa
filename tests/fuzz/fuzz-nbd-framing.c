/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the NBD framing tracker (preload/nbd-framing.c).
 *
 * The input is a list of records, each fed to one fresh tracker in turn:
 *   u8 control, u8 length, then LENGTH bytes (fewer at the end of input)
 * control bit 0: 0 = sent, 1 = received; bits 1-2: the chunk is cut into
 * 1 to 4 iovecs; bit 5: the bytes move unseen (sendfile, splice: only
 * their number is fed); bit 6: a sent chunk goes out as a partial write
 * and then its rest; bit 7: the length is counted in units of 64 bytes.
 * Every iovec lives in its own exact-size allocation, so that any read
 * past the bytes handed over is caught by AddressSanitizer.  The tracker
 * has a table for a server's READs in flight, as in the library.  Besides
 * not crashing, the tracker must keep its promise: MSG_MORE only where
 * the send leaves the stream right after a header with payload to come,
 * and what send_ends said matches where the real send left the stream.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nbd-framing.h"

#define MAX_IOV 4

static struct sb_reads reads;

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Cut P[0..N) into COUNT iovecs, each in its own allocation. */
static int
make_iov (struct iovec *iov, int count, const uint8_t *p, size_t n)
{
  int i;

  for (i = 0; i < count; i++) {
    size_t from = n * i / count, to = n * (i + 1) / count;
    iov[i].iov_len = to - from;
    iov[i].iov_base = malloc (to - from ? to - from : 1);
    if (iov[i].iov_base == NULL)
      abort ();
    memcpy (iov[i].iov_base, p + from, to - from);
  }
  return count;
}

static void
free_iov (struct iovec *iov, int count)
{
  int i;

  for (i = 0; i < count; i++)
    free (iov[i].iov_base);
}

static bool
inside_message (const struct sb_framing_dir *d)
{
  return d->need != 0 || d->remaining != 0;
}

static void
check_invariants (const struct sb_framing *f)
{
  if (f->out.have > f->out.need || f->out.need > SB_FRAMING_HDR_MAX ||
      f->in.have > f->in.need || f->in.need > SB_FRAMING_HDR_MAX)
    __builtin_trap ();
}

/* Send IOV (NBYTES of it), holding send_ends to its word when the whole
 * of it went out and the tracker stayed on.
 */
static void
send_checked (struct sb_framing *f, const struct iovec *iov, int count,
              size_t nbytes, size_t total)
{
  enum sb_framing_end end = sb_framing_send_ends (f, iov, count);
  bool more = sb_framing_wants_more (f, iov, count);
  bool was_off = sb_framing_is_off (f);

  sb_framing_sent (f, iov, count, nbytes);
  if (more != (end == SB_FRAMING_END_HEADER) || (was_off && more))
    __builtin_trap ();
  if (nbytes != total || sb_framing_is_off (f)
      || end == SB_FRAMING_END_UNKNOWN)
    return;
  if ((end == SB_FRAMING_END_BOUNDARY) == inside_message (&f->out)
      || end == SB_FRAMING_END_OFF)
    __builtin_trap ();
  /* MSG_MORE: a header ended and its payload is still all to come (but
   * for the fixed fields, at most 12 bytes, that went with it).
   */
  if (more && (f->out.need != 0 || f->out.remaining == 0))
    __builtin_trap ();
}

/* The rest of IOV after its first SKIP bytes, as a new iovec list. */
static int
rest_of (struct iovec *rest, const struct iovec *iov, int count, size_t skip)
{
  int i, n = 0;

  for (i = 0; i < count; i++) {
    if (skip >= iov[i].iov_len) {
      skip -= iov[i].iov_len;
      continue;
    }
    rest[n].iov_base = (uint8_t *) iov[i].iov_base + skip;
    rest[n].iov_len = iov[i].iov_len - skip;
    skip = 0;
    n++;
  }
  return n;
}

static void
feed_chunk (struct sb_framing *f, uint8_t ctl, const uint8_t *p, size_t n)
{
  struct iovec iov[MAX_IOV], rest[MAX_IOV];
  int count = make_iov (iov, ((ctl >> 1) & 3) + 1, p, n);

  if (ctl & 0x20)
    sb_framing_unseen (f, !(ctl & 1), n);
  else if (ctl & 1)
    sb_framing_received (f, iov, count, n);
  else if ((ctl & 0x40) && n > 1) {
    send_checked (f, iov, count, n / 2, n);
    send_checked (f, rest, rest_of (rest, iov, count, n / 2), n - n / 2,
                  n - n / 2);
  }
  else
    send_checked (f, iov, count, n, n);
  check_invariants (f);
  free_iov (iov, count);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sb_framing f;

  memset (&f, 0, sizeof f);
  sb_framing_attach_reads (&f, &reads);
  while (size >= 2) {
    uint8_t ctl = data[0];
    size_t len = data[1];

    data += 2;
    size -= 2;
    if (ctl & 0x80)
      len <<= 6;
    if (len > size)
      len = size;
    feed_chunk (&f, ctl, data, len);
    data += len;
    size -= len;
  }
  (void) sb_framing_off_reason (&f);
  (void) sb_framing_nbd_seen (&f);
  return 0;
}
