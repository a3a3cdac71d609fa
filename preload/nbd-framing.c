/* SPDX-License-Identifier: MIT */
/* NBD stream framing tracker: one parser per direction over a shared,
 * negotiated state.  Headers are gathered into a small buffer; payloads
 * are skipped by arithmetic, never looked at.  What a complete header
 * means is in nbd-framing-headers.c.
 */
#include <string.h>

#include "nbd-framing-impl.h"
#include "nbd-protocol.h"

/* ---- Where a message starts: its kind follows from the state ---- */

static uint8_t
c2s_kind (uint8_t st)
{
  if (st & ST_DISC)
    return K_NONE;
  if (st & (ST_TRANSMISSION | ST_EXPORT_NAME))
    return st & ST_EXTENDED ? K_REQUEST_EXT : K_REQUEST;
  return st & ST_CLIENT_FLAGS ? K_OPTION : K_CLIENT_FLAGS;
}

static uint8_t
s2c_kind (uint8_t st)
{
  if (st & ST_TRANSMISSION)
    return K_REPLY_MAGIC;
  return st & ST_EXPORT_NAME ? K_EXPORT_FINISH : K_OPT_REPLY;
}

/* struct sb_framing.spoke: a side began gathering a greeting. */
static uint8_t
spoke_bit (bool sending)
{
  return sending ? 1 : 2;
}

/* Open the next message on D; false (with a reason) if none may come. */
static bool
begin_message (struct sb_framing_ctx *c)
{
  uint8_t kind;

  if (c->role == SB_FRAMING_ROLE_UNKNOWN) {
    kind = K_GREETING;
    if (c->w)
      atomic_fetch_or_explicit (&c->w->spoke, spoke_bit (c->sending),
                                memory_order_relaxed);
  }
  else
    kind = c->s2c ? s2c_kind (c->state) : c2s_kind (c->state);
  if (kind == K_NONE) {
    c->off = SB_FRAMING_OFF_AFTER_DISC;
    return false;
  }
  c->d->kind = kind;
  c->d->need = sb_framing_header_size (kind);
  c->d->have = 0;
  c->header_ended = false;
  return true;
}

/* ---- Magic numbers, checked as each byte arrives ---- */

/* Do header bytes [FROM, TO) agree with the WIDTH-byte MAGIC at AT? */
static bool
magic_agrees (const uint8_t *hdr, unsigned from, unsigned to,
              unsigned at, uint64_t magic, unsigned width)
{
  unsigned i;

  for (i = from > at ? from : at; i < to && i < at + width; i++)
    if (hdr[i] != (uint8_t) (magic >> (8 * (at + width - 1 - i))))
      return false;
  return true;
}

/* A reply may start with any of the three reply magics. */
static bool
reply_magic_agrees (const uint8_t *hdr, unsigned to)
{
  return magic_agrees (hdr, 0, to, 0, NBD_SIMPLE_REPLY_MAGIC, 4) ||
    magic_agrees (hdr, 0, to, 0, NBD_STRUCTURED_REPLY_MAGIC, 4) ||
    magic_agrees (hdr, 0, to, 0, NBD_EXTENDED_REPLY_MAGIC, 4);
}

static uint8_t
check_bytes (const struct sb_framing_dir *d, unsigned from, unsigned to)
{
  const uint8_t *h = d->hdr;
  bool ok = true;

  switch (d->kind) {
  case K_GREETING:
    if (!magic_agrees (h, from, to, 0, NBD_MAGIC, 8))
      return SB_FRAMING_OFF_NOT_NBD;
    if (!magic_agrees (h, from, to, 8, NBD_IHAVEOPT, 8))
      return SB_FRAMING_OFF_OLDSTYLE;
    break;
  case K_OPTION: ok = magic_agrees (h, from, to, 0, NBD_IHAVEOPT, 8); break;
  case K_OPT_REPLY: ok = magic_agrees (h, from, to, 0, NBD_REP_MAGIC, 8); break;
  case K_REQUEST:
    ok = magic_agrees (h, from, to, 0, NBD_REQUEST_MAGIC, 4);
    break;
  case K_REQUEST_EXT:
    ok = magic_agrees (h, from, to, 0, NBD_EXTENDED_REQUEST_MAGIC, 4);
    break;
  case K_REPLY_MAGIC: ok = reply_magic_agrees (h, to); break;
  default: break;
  }
  return ok ? SB_FRAMING_ON : SB_FRAMING_OFF_BAD_MAGIC;
}

/* NBDMAGIC went by on D: the role follows from the direction.  Bytes the
 * other way before the greeting mean this is not NBD.
 */
static uint8_t
claim_role (struct sb_framing_ctx *c)
{
  uint8_t spoke = atomic_load_explicit (&c->f->spoke, memory_order_relaxed);
  uint8_t unknown = SB_FRAMING_ROLE_UNKNOWN;

  if (spoke & spoke_bit (!c->sending))
    return SB_FRAMING_OFF_BOTH_SPOKE;
  c->role = c->sending ? SB_FRAMING_ROLE_SERVER : SB_FRAMING_ROLE_CLIENT;
  c->s2c = true;
  if (c->w) {
    if (!atomic_compare_exchange_strong (&c->w->role, &unknown, c->role))
      return SB_FRAMING_OFF_BOTH_SPOKE;
    if (c->sending)
      atomic_store_explicit (&c->w->nbd_seen, true, memory_order_relaxed);
  }
  return SB_FRAMING_ON;
}

/* ---- Feeding bytes ---- */

/* Copy N header bytes at P (offset c->pos of the send) to DST: straight
 * from P, or through the pass's reader, which may fail.
 */
static bool
take_bytes (struct sb_framing_ctx *c, uint8_t *dst, uintptr_t p, size_t n)
{
  if (c->read == NULL) {
    memcpy (dst, (const void *) p, n);
    return true;
  }
  if (c->read (c->read_ctx, c->pos, dst, n))
    return true;
  c->unreadable = true;
  c->off = SB_FRAMING_OFF_UNSEEN;       /* stops the pass; never stored */
  return false;
}

/* Gather up to N header bytes from P; return how many were taken. */
static size_t
gather (struct sb_framing_ctx *c, uintptr_t p, size_t n)
{
  struct sb_framing_dir *d = c->d;
  size_t k = (size_t) (d->need - d->have);
  unsigned from = d->have;

  if (k > n)
    k = n;
  if (!take_bytes (c, d->hdr + from, p, k))
    return 0;
  d->have = (uint8_t) (from + k);
  c->off = check_bytes (d, from, d->have);
  /* NBDMAGIC alone decides the role, whatever follows it. */
  if (d->kind == K_GREETING && from < 8 && d->have >= 8 &&
      c->off != SB_FRAMING_OFF_NOT_NBD) {
    uint8_t off = claim_role (c);
    if (!c->off)
      c->off = off;
  }
  while (!c->off && d->need != 0 && d->have == d->need)
    c->off = sb_framing_header_done (c);
  return k;
}

/* A real pass on the outgoing side carried a READ's or WRITE's data
 * with its header: in transmission, the program writes whole messages
 * (servers that write the data apart may still build a small reply,
 * such as block status, in one piece: that says nothing).
 */
static void
note_joined (struct sb_framing_ctx *c)
{
  if (c->w && c->sending && (c->state & ST_TRANSMISSION))
    atomic_store_explicit (&c->w->joins, true, memory_order_relaxed);
}

/* Feed the N bytes at P (an address: in a pass with a reader it is
 * never loaded from); payload bytes are skipped, never looked at.
 */
static void
feed (struct sb_framing_ctx *c, uintptr_t p, size_t n)
{
  struct sb_framing_dir *d = c->d;
  size_t k;

  while (n > 0 && !c->off) {
    if (d->remaining > 0) {
      k = d->remaining < n ? (size_t) d->remaining : n;
      d->remaining -= k;
      if (c->header_ended && c->data_payload && d->remaining < c->more_min)
        note_joined (c);
    }
    else {
      if (d->need == 0 && !begin_message (c))
        break;
      k = gather (c, p, n);
    }
    p += k;
    n -= k;
    c->pos += k;
  }
}

/* Feed bytes FROM to NBYTES of the send IOV. */
static void
feed_iov (struct sb_framing_ctx *c, const struct iovec *iov, int iovcnt,
          size_t from, size_t nbytes)
{
  size_t at = 0;

  c->pos = from;
  for (int i = 0; i < iovcnt && at < nbytes && !c->off; i++) {
    size_t len = iov[i].iov_len, end = at + len < at ? SIZE_MAX : at + len;
    if (end > c->pos) {
      size_t skip = c->pos - at;
      feed (c, (uintptr_t) iov[i].iov_base + skip,
            (end < nbytes ? end : nbytes) - c->pos);
    }
    at = end;
  }
}

/* A pass over D, which is F's outgoing direction (or a copy of it) if
 * SENDING; dry until the caller sets c->w.
 */
static void
start (struct sb_framing_ctx *c, const struct sb_framing *f,
       struct sb_framing_dir *d, bool sending)
{
  memset (c, 0, sizeof *c);
  c->f = f;
  c->d = d;
  c->sending = sending;
  c->state = atomic_load_explicit (&f->state, memory_order_acquire);
  c->role = atomic_load_explicit (&f->role, memory_order_acquire);
  c->s2c = sending == (c->role == SB_FRAMING_ROLE_SERVER);
}

/* A real pass over bytes FROM to NBYTES of IOV on F's side D; where it
 * stopped (NBYTES, or the offset of bytes READ could not give).
 */
static size_t
track (struct sb_framing *f, struct sb_framing_dir *d,
       const struct iovec *iov, int iovcnt, size_t from, size_t nbytes,
       sb_framing_read_fn *read, void *ctx)
{
  struct sb_framing_ctx c;

  if (sb_framing_is_off (f))
    return nbytes;
  start (&c, f, d, d == &f->out);
  c.w = f;
  c.read = read;
  c.read_ctx = ctx;
  feed_iov (&c, iov, iovcnt, from, nbytes);
  if (c.unreadable)
    return c.pos;
  if (c.off)
    sb_framing_abandon (f, c.off);
  return nbytes;
}

void
sb_framing_sent (struct sb_framing *f, const struct iovec *iov, int iovcnt,
                 size_t nbytes)
{
  track (f, &f->out, iov, iovcnt, 0, nbytes, NULL, NULL);
}

size_t
sb_framing_sent_read (struct sb_framing *f, const struct iovec *iov,
                      int iovcnt, size_t from, size_t nbytes,
                      sb_framing_read_fn *read, void *ctx)
{
  return track (f, &f->out, iov, iovcnt, from, nbytes, read, ctx);
}

void
sb_framing_received (struct sb_framing *f, const struct iovec *iov,
                     int iovcnt, size_t nbytes)
{
  if (sb_framing_wants_input (f))
    track (f, &f->in, iov, iovcnt, 0, nbytes, NULL, NULL);
}

void
sb_framing_unseen (struct sb_framing *f, bool sending, size_t nbytes)
{
  struct sb_framing_dir *d = sending ? &f->out : &f->in;

  if (sb_framing_is_off (f) || (!sending && !sb_framing_wants_input (f)))
    return;
  if (d->need == 0 && d->remaining >= nbytes)
    d->remaining -= nbytes;
  else
    sb_framing_abandon (f, SB_FRAMING_OFF_UNSEEN);
}

/* The invariant in nbd-framing.h: the pass ended right after a header
 * (or within the fixed fields behind it) that announced a payload.
 */
enum sb_framing_end
sb_framing_send_ends (const struct sb_framing *f, const struct iovec *iov,
                      int iovcnt, sb_framing_read_fn *read, void *ctx)
{
  struct sb_framing_dir d;
  struct sb_framing_ctx c;

  if (sb_framing_is_off (f))
    return SB_FRAMING_END_OFF;
  d = f->out;
  start (&c, f, &d, true);
  c.read = read;
  c.read_ctx = ctx;
  feed_iov (&c, iov, iovcnt, 0, SIZE_MAX);
  if (c.unreadable)
    return SB_FRAMING_END_UNREADABLE;
  if (c.gave_up)
    return SB_FRAMING_END_UNKNOWN;
  if (c.off)
    return SB_FRAMING_END_OFF;
  if (d.need == 0 && d.remaining == 0)
    return SB_FRAMING_END_BOUNDARY;
  if (c.header_ended && d.need == 0 && d.remaining >= c.more_min)
    return SB_FRAMING_END_HEADER;
  return SB_FRAMING_END_INSIDE;
}

bool
sb_framing_wants_more (const struct sb_framing *f, const struct iovec *iov,
                       int iovcnt)
{
  return sb_framing_send_ends (f, iov, iovcnt, NULL, NULL)
    == SB_FRAMING_END_HEADER;
}

/* ---- Queries ---- */

bool
sb_framing_wants_input (const struct sb_framing *f)
{
  uint8_t state = atomic_load_explicit (&f->state, memory_order_acquire);

  return !sb_framing_is_off (f)
    && !((state & ST_TRANSMISSION)
         && atomic_load_explicit (&f->role, memory_order_relaxed)
         == SB_FRAMING_ROLE_CLIENT);
}

bool
sb_framing_is_off (const struct sb_framing *f)
{
  return atomic_load_explicit (&f->off, memory_order_acquire)
    != SB_FRAMING_ON;
}

void
sb_framing_abandon (struct sb_framing *f, enum sb_framing_off why)
{
  uint8_t on = SB_FRAMING_ON;

  atomic_compare_exchange_strong (&f->off, &on, why != SB_FRAMING_ON
                                  ? (uint8_t) why : SB_FRAMING_OFF_ABANDONED);
}

enum sb_framing_role
sb_framing_role (const struct sb_framing *f)
{
  return (enum sb_framing_role) atomic_load (&f->role);
}

bool
sb_framing_joins (const struct sb_framing *f)
{
  return atomic_load_explicit (&f->joins, memory_order_relaxed);
}

bool
sb_framing_nbd_seen (const struct sb_framing *f)
{
  return atomic_load (&f->nbd_seen);
}

enum sb_framing_off
sb_framing_off_code (const struct sb_framing *f)
{
  return (enum sb_framing_off) atomic_load (&f->off);
}

const char *
sb_framing_off_reason (const struct sb_framing *f)
{
  switch (sb_framing_off_code (f)) {
  case SB_FRAMING_ON: return "";
  case SB_FRAMING_OFF_NOT_NBD: return "stream does not start with NBDMAGIC";
  case SB_FRAMING_OFF_OLDSTYLE: return "not a fixed-newstyle handshake";
  case SB_FRAMING_OFF_BOTH_SPOKE: return "bytes both ways before the greeting";
  case SB_FRAMING_OFF_CLIENT_FLAGS: return "unknown client flags";
  case SB_FRAMING_OFF_BAD_MAGIC: return "unknown magic at a message boundary";
  case SB_FRAMING_OFF_BAD_LENGTH: return "impossible length in a header";
  case SB_FRAMING_OFF_NOT_NEGOTIATED: return "reply kind not negotiated";
  case SB_FRAMING_OFF_STARTTLS: return "TLS negotiated";
  case SB_FRAMING_OFF_COOKIES_FULL:
    return "no room for one more READ in flight";
  case SB_FRAMING_OFF_DUP_COOKIE: return "READ cookie already in flight";
  case SB_FRAMING_OFF_AFTER_DISC: return "bytes after NBD_CMD_DISC";
  case SB_FRAMING_OFF_ABANDONED: return "state lost (fork during an update)";
  case SB_FRAMING_OFF_UNSEEN:
    return "bytes it could not read (sendfile, splice) where a header was due";
  case SB_FRAMING_OFF_BUSY:
    return "a call it could not follow (another thread or a signal handler "
      "was inside the tracker)";
  case SB_FRAMING_OFF_NO_TABLE: return "no table for the READs in flight";
  case SB_FRAMING_OFF_UNREADABLE:
    return "header bytes it could not read (a write the descriptor took "
      "unread, or too many headers in one write)";
  default: return "unknown reason";
  }
}
