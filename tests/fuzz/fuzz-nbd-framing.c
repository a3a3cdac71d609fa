/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the NBD framing tracker (preload/nbd-framing.c).
 *
 * The input is a list of records, each fed to one fresh tracker in turn:
 *   u8 control, u8 length, then LENGTH bytes (fewer at the end of input)
 * control bit 0: 0 = sent, 1 = received; bits 1-2: the chunk is cut into
 * 1 to 4 iovecs; bit 3: a sent chunk is fed through a reader (as after a
 * write() the library reads through the kernel) that refuses once, a
 * third of the way in, and the feed then goes on from where it stopped;
 * bit 5: the bytes move unseen (sendfile, splice: only their number is
 * fed); bit 6: a sent chunk goes out as a partial write and then its
 * rest; bit 7: the length is counted in units of 64 bytes.
 * Every iovec lives in its own exact-size allocation, so that any read
 * past the bytes handed over is caught by AddressSanitizer.  The tracker
 * has a table for a server's READs in flight, as in the library.  Besides
 * not crashing, the tracker must keep its promise: MSG_MORE only where
 * the send leaves the stream right after a header with payload to come,
 * and what send_ends said matches where the real send left the stream.
 * A shadow tracker is fed the same bytes straight from the iovecs: the
 * paths through a reader (dry and real) must come to the same.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "nbd-framing.h"

#define MAX_IOV 4

static struct sb_reads reads, shadow_reads;

/* A reader over a send's iovecs, which refuses once when asked for an
 * offset at or past REFUSE_AT (SIZE_MAX: never).
 */
struct reader {
  const struct iovec *iov;
  int count;
  size_t refuse_at;
};

static bool
read_iov (void *ctx, size_t off, void *dst, size_t len)
{
  struct reader *r = ctx;
  uint8_t *out = dst;

  if (off >= r->refuse_at) {
    r->refuse_at = SIZE_MAX;
    return false;
  }
  for (int i = 0; i < r->count && len > 0; i++) {
    size_t n = r->iov[i].iov_len;
    if (off >= n) {
      off -= n;
      continue;
    }
    n -= off;
    if (n > len)
      n = len;
    memcpy (out, (const uint8_t *) r->iov[i].iov_base + off, n);
    out += n;
    len -= n;
    off = 0;
  }
  return len == 0;
}

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

/* Feed NBYTES of IOV to F through a reader that refuses once, at
 * REFUSE_AT, going on from where each pass stopped.
 */
static void
sent_through_reader (struct sb_framing *f, const struct iovec *iov,
                     int count, size_t nbytes, size_t refuse_at)
{
  struct reader r = { iov, count, refuse_at };
  size_t at = 0;

  for (int pass = 0; pass < 2 && at < nbytes; pass++) {
    size_t next = sb_framing_sent_read (f, iov, count, at, nbytes, read_iov,
                                        &r);
    if (next < at || next > nbytes)
      __builtin_trap ();
    at = next;
  }
  if (at != nbytes)
    __builtin_trap ();
}

/* Send IOV (NBYTES of it), holding send_ends to its word when the whole
 * of it went out and the tracker stayed on.
 */
static void
send_checked (struct sb_framing *f, const struct iovec *iov, int count,
              size_t nbytes, size_t total, bool reader)
{
  enum sb_framing_end end = sb_framing_send_ends (f, iov, count, NULL, NULL);
  bool more = sb_framing_wants_more (f, iov, count);
  bool was_off = sb_framing_is_off (f);
  struct reader all = { iov, count, SIZE_MAX }, some = { iov, count,
                                                         total / 3 };
  enum sb_framing_end refused = sb_framing_send_ends (f, iov, count,
                                                      read_iov, &some);

  /* Through a reader the dry run says the same, or that it could not
   * read where the reader refused.
   */
  if (sb_framing_send_ends (f, iov, count, read_iov, &all) != end
      || (refused != end && refused != SB_FRAMING_END_UNREADABLE))
    __builtin_trap ();
  if (reader)
    sent_through_reader (f, iov, count, nbytes, total / 3);
  else
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

/* The same as F, as far as anyone outside the tracker can tell? */
static bool
same (const struct sb_framing *f, const struct sb_framing *g)
{
  return memcmp (&f->out, &g->out, sizeof f->out) == 0
    && memcmp (&f->in, &g->in, sizeof f->in) == 0
    && sb_framing_off_code (f) == sb_framing_off_code (g)
    && sb_framing_role (f) == sb_framing_role (g)
    && sb_framing_nbd_seen (f) == sb_framing_nbd_seen (g);
}

static void
feed_chunk (struct sb_framing *f, struct sb_framing *shadow, uint8_t ctl,
            const uint8_t *p, size_t n)
{
  struct iovec iov[MAX_IOV], rest[MAX_IOV];
  int count = make_iov (iov, ((ctl >> 1) & 3) + 1, p, n);
  bool reader = ctl & 0x08;

  if (ctl & 0x20) {
    sb_framing_unseen (f, !(ctl & 1), n);
    sb_framing_unseen (shadow, !(ctl & 1), n);
  }
  else if (ctl & 1) {
    sb_framing_received (f, iov, count, n);
    sb_framing_received (shadow, iov, count, n);
  }
  else if ((ctl & 0x40) && n > 1) {
    int rcount = rest_of (rest, iov, count, n / 2);
    send_checked (f, iov, count, n / 2, n, reader);
    send_checked (f, rest, rcount, n - n / 2, n - n / 2, reader);
    sb_framing_sent (shadow, iov, count, n / 2);
    sb_framing_sent (shadow, rest, rcount, n - n / 2);
  }
  else {
    send_checked (f, iov, count, n, n, reader);
    sb_framing_sent (shadow, iov, count, n);
  }
  check_invariants (f);
  if (!same (f, shadow))
    __builtin_trap ();
  free_iov (iov, count);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sb_framing f, shadow;

  memset (&f, 0, sizeof f);
  memset (&shadow, 0, sizeof shadow);
  sb_framing_attach_reads (&f, &reads);
  sb_framing_attach_reads (&shadow, &shadow_reads);
  while (size >= 2) {
    uint8_t ctl = data[0];
    size_t len = data[1];

    data += 2;
    size -= 2;
    if (ctl & 0x80)
      len <<= 6;
    if (len > size)
      len = size;
    feed_chunk (&f, &shadow, ctl, data, len);
    data += len;
    size -= len;
  }
  (void) sb_framing_off_reason (&f);
  (void) sb_framing_nbd_seen (&f);
  return 0;
}
