/* SPDX-License-Identifier: MIT */
/* NBD stream framing tracker: one parser per direction over a shared,
 * negotiated state.  Headers are gathered into a small buffer; payloads
 * are skipped by arithmetic, never looked at.
 */
#include <endian.h>
#include <string.h>

#include "nbd-framing.h"
#include "nbd-protocol.h"

/* Tracker policy, not protocol: a length past these means the frame was
 * lost (nbdkit allows 64 MiB requests; option data is a few KiB).
 */
#define MAX_OPTION_DATA (UINT32_C(1) << 20)
#define MAX_PAYLOAD ((uint64_t) 4 * NBD_MAX_PAYLOAD)

/* The header a direction is gathering (struct sb_framing_dir.kind). */
enum kind {
  K_NONE = 0,
  K_GREETING,                   /* s2c: NBDMAGIC IHAVEOPT gflags */
  K_CLIENT_FLAGS,               /* c2s: u32 flags */
  K_OPTION,                     /* c2s: IHAVEOPT option length, data */
  K_OPT_REPLY,                  /* s2c: magic option type length, data */
  K_EXPORT_FINISH,              /* s2c: size flags, maybe zeroes */
  K_REQUEST,                    /* c2s: compact request, maybe data */
  K_REQUEST_EXT,                /* c2s: extended request, maybe data */
  K_REPLY_MAGIC,                /* s2c: 4 bytes telling the reply kind */
  K_SIMPLE,                     /* s2c: simple reply, maybe READ data */
  K_STRUCTURED,                 /* s2c: structured chunk, data */
  K_EXTENDED,                   /* s2c: extended reply, data */
};

/* struct sb_framing.state bits. */
enum {
  ST_SERVER_NO_ZEROES = 1 << 0,
  ST_CLIENT_NO_ZEROES = 1 << 1,
  ST_CLIENT_FLAGS = 1 << 2,     /* client flags went by */
  ST_EXPORT_NAME = 1 << 3,      /* NBD_OPT_EXPORT_NAME went by */
  ST_TRANSMISSION = 1 << 4,     /* handshake over (GO acked, or finish) */
  ST_STRUCTURED = 1 << 5,
  ST_EXTENDED = 1 << 6,
  ST_DISC = 1 << 7,             /* NBD_CMD_DISC went by */
};

/* One pass of bytes through one direction.  W is NULL for a dry run
 * (sb_framing_wants_more): then nothing but *D changes.
 */
struct ctx {
  const struct sb_framing *f;
  struct sb_framing *w;
  struct sb_framing_dir *d;
  bool s2c;                     /* D carries server-to-client bytes */
  uint8_t off;                  /* enum sb_framing_off, once surprised */
};

static uint16_t
get16 (const uint8_t *p)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  return be16toh (v);
}

static uint32_t
get32 (const uint8_t *p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return be32toh (v);
}

static uint64_t
get64 (const uint8_t *p)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return be64toh (v);
}

/* ---- Table of READs in flight: cookie -> length ---- */

static int
cookie_find (const struct sb_framing *f, uint64_t cookie)
{
  int i;
  for (i = 0; i < f->ncookies; i++)
    if (f->cookie[i] == cookie)
      return i;
  return -1;
}

static uint8_t
cookie_add (struct sb_framing *w, uint64_t cookie, uint32_t len)
{
  if (cookie_find (w, cookie) >= 0)
    return SB_FRAMING_OFF_DUP_COOKIE;
  if (w->ncookies >= SB_FRAMING_COOKIES)
    return SB_FRAMING_OFF_COOKIES_FULL;
  w->cookie[w->ncookies] = cookie;
  w->read_len[w->ncookies] = len;
  w->ncookies++;
  return SB_FRAMING_ON;
}

/* Order does not matter: the last entry fills the hole. */
static void
cookie_drop (struct sb_framing *w, uint64_t cookie)
{
  int i = cookie_find (w, cookie);
  if (i < 0)
    return;
  w->ncookies--;
  w->cookie[i] = w->cookie[w->ncookies];
  w->read_len[i] = w->read_len[w->ncookies];
}

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

static uint8_t
header_size (uint8_t kind)
{
  switch (kind) {
  case K_GREETING: return sizeof (struct nbd_new_handshake);
  case K_CLIENT_FLAGS: return sizeof (uint32_t);
  case K_OPTION: return sizeof (struct nbd_option);
  case K_OPT_REPLY: return sizeof (struct nbd_fixed_new_option_reply);
  case K_EXPORT_FINISH: return sizeof (struct nbd_new_handshake_finish);
  case K_REQUEST: return sizeof (struct nbd_request);
  case K_REQUEST_EXT: return sizeof (struct nbd_request_ext);
  case K_REPLY_MAGIC: return sizeof (uint32_t);
  case K_SIMPLE: return sizeof (struct nbd_simple_reply);
  case K_STRUCTURED: return sizeof (struct nbd_structured_reply);
  case K_EXTENDED: return sizeof (struct nbd_extended_reply);
  default: return 0;
  }
}

/* Open the next message on D; false (with a reason) if none may come. */
static bool
begin_message (struct ctx *c)
{
  uint8_t st = c->f->state, kind;

  if (c->f->role == SB_FRAMING_ROLE_UNKNOWN)
    kind = K_GREETING;
  else
    kind = c->s2c ? s2c_kind (st) : c2s_kind (st);
  if (kind == K_NONE) {
    c->off = SB_FRAMING_OFF_AFTER_DISC;
    return false;
  }
  c->d->kind = kind;
  c->d->need = header_size (kind);
  c->d->have = 0;
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
claim_role (struct ctx *c)
{
  struct sb_framing *w = c->w;
  bool sent = c->d == &w->out;
  const struct sb_framing_dir *other = sent ? &w->in : &w->out;

  if (other->need != 0 || other->remaining != 0)
    return SB_FRAMING_OFF_BOTH_SPOKE;
  w->role = sent ? SB_FRAMING_ROLE_SERVER : SB_FRAMING_ROLE_CLIENT;
  if (sent)
    w->nbd_seen = 1;
  c->s2c = true;
  return SB_FRAMING_ON;
}

/* ---- Complete headers: payload length and effects ---- */

/* The header is done and PAYLOAD bytes follow it. */
static uint8_t
end_header (struct sb_framing_dir *d, uint64_t payload)
{
  d->have = 0;
  d->need = 0;
  d->remaining = payload;
  return SB_FRAMING_ON;
}

static void
set_state (struct ctx *c, uint8_t bits)
{
  if (c->w)
    c->w->state |= bits;
}

static uint8_t
done_greeting (struct ctx *c)
{
  uint16_t gflags = get16 (c->d->hdr + offsetof (struct nbd_new_handshake,
                                                 gflags));

  if (!(gflags & NBD_FLAG_FIXED_NEWSTYLE))
    return SB_FRAMING_OFF_OLDSTYLE;
  if (gflags & NBD_FLAG_NO_ZEROES)
    set_state (c, ST_SERVER_NO_ZEROES);
  return end_header (c->d, 0);
}

static uint8_t
done_client_flags (struct ctx *c)
{
  uint32_t flags = get32 (c->d->hdr);

  if (flags & ~(uint32_t) (NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES))
    return SB_FRAMING_OFF_CLIENT_FLAGS;
  set_state (c, ST_CLIENT_FLAGS);
  if (flags & NBD_FLAG_C_NO_ZEROES)
    set_state (c, ST_CLIENT_NO_ZEROES);
  return end_header (c->d, 0);
}

static uint8_t
done_option (struct ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t option = get32 (h + offsetof (struct nbd_option, option));
  uint32_t len = get32 (h + offsetof (struct nbd_option, optlen));

  if (len > MAX_OPTION_DATA)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (option == NBD_OPT_EXPORT_NAME)
    set_state (c, ST_EXPORT_NAME);
  if (c->w && c->d == &c->w->out)
    c->w->nbd_seen = 1;
  return end_header (c->d, len);
}

/* An ACK switches on what its option asked for. */
static uint8_t
apply_ack (struct ctx *c, uint32_t option)
{
  switch (option) {
  case NBD_OPT_GO: set_state (c, ST_TRANSMISSION); break;
  case NBD_OPT_STRUCTURED_REPLY: set_state (c, ST_STRUCTURED); break;
  case NBD_OPT_EXTENDED_HEADERS: set_state (c, ST_EXTENDED); break;
  case NBD_OPT_STARTTLS: return SB_FRAMING_OFF_STARTTLS;
  default: break;
  }
  return SB_FRAMING_ON;
}

static uint8_t
done_opt_reply (struct ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t option, type, len;

  option = get32 (h + offsetof (struct nbd_fixed_new_option_reply, option));
  type = get32 (h + offsetof (struct nbd_fixed_new_option_reply, reply));
  len = get32 (h + offsetof (struct nbd_fixed_new_option_reply, replylen));
  if (len > MAX_OPTION_DATA || (type == NBD_REP_ACK && len != 0))
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (type == NBD_REP_ACK) {
    uint8_t off = apply_ack (c, option);
    if (off)
      return off;
  }
  return end_header (c->d, len);
}

static uint8_t
done_export_finish (struct ctx *c)
{
  uint8_t both = ST_SERVER_NO_ZEROES | ST_CLIENT_NO_ZEROES;
  bool no_zeroes = (c->f->state & both) == both;

  set_state (c, ST_TRANSMISSION);
  return end_header (c->d, no_zeroes ? 0 : NBD_EXPORT_NAME_ZEROES);
}

/* Compact and extended requests share the layout up to the length. */
static uint8_t
done_request (struct ctx *c, bool ext)
{
  const uint8_t *h = c->d->hdr;
  uint16_t flags = get16 (h + offsetof (struct nbd_request, flags));
  uint16_t type = get16 (h + offsetof (struct nbd_request, type));
  uint64_t cookie = get64 (h + offsetof (struct nbd_request, cookie));
  uint64_t len = ext ? get64 (h + offsetof (struct nbd_request_ext, count))
    : get32 (h + offsetof (struct nbd_request, count));
  bool data = type == NBD_CMD_WRITE ||
    (ext && (flags & NBD_CMD_FLAG_PAYLOAD_LEN));

  if ((data || type == NBD_CMD_READ) && len > MAX_PAYLOAD)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (type == NBD_CMD_DISC)
    set_state (c, ST_DISC);
  if (type == NBD_CMD_READ && c->w) {
    uint8_t off = cookie_add (c->w, cookie, (uint32_t) len);
    if (off)
      return off;
  }
  return end_header (c->d, data ? len : 0);
}

/* The magic says which reply header this is, if it was agreed on. */
static uint8_t
done_reply_magic (struct ctx *c)
{
  uint32_t magic = get32 (c->d->hdr);
  bool ext = c->f->state & ST_EXTENDED;
  bool structured = c->f->state & ST_STRUCTURED;
  uint8_t kind;

  if (magic == NBD_SIMPLE_REPLY_MAGIC && !ext)
    kind = K_SIMPLE;
  else if (magic == NBD_STRUCTURED_REPLY_MAGIC && structured && !ext)
    kind = K_STRUCTURED;
  else if (magic == NBD_EXTENDED_REPLY_MAGIC && ext)
    kind = K_EXTENDED;
  else
    return SB_FRAMING_OFF_NOT_NEGOTIATED;
  c->d->kind = kind;
  c->d->need = header_size (kind);
  return SB_FRAMING_ON;
}

/* A simple reply carries data only for a successful READ we saw asked. */
static uint8_t
done_simple (struct ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t error = get32 (h + offsetof (struct nbd_simple_reply, error));
  uint64_t cookie = get64 (h + offsetof (struct nbd_simple_reply, cookie));
  int i = cookie_find (c->f, cookie);
  uint64_t payload = i >= 0 && error == NBD_SUCCESS ? c->f->read_len[i] : 0;

  if (c->w)
    cookie_drop (c->w, cookie);
  return end_header (c->d, payload);
}

/* Structured and extended chunks carry their own length. */
static uint8_t
done_chunk (struct ctx *c, bool ext)
{
  const uint8_t *h = c->d->hdr;
  uint16_t flags = get16 (h + offsetof (struct nbd_structured_reply, flags));
  uint64_t cookie = get64 (h + offsetof (struct nbd_structured_reply,
                                         cookie));
  uint64_t len = ext ? get64 (h + offsetof (struct nbd_extended_reply, length))
    : get32 (h + offsetof (struct nbd_structured_reply, length));

  if (len > MAX_PAYLOAD)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (c->w && (flags & NBD_REPLY_FLAG_DONE))
    cookie_drop (c->w, cookie);
  return end_header (c->d, len);
}

static uint8_t
header_done (struct ctx *c)
{
  switch (c->d->kind) {
  case K_GREETING: return done_greeting (c);
  case K_CLIENT_FLAGS: return done_client_flags (c);
  case K_OPTION: return done_option (c);
  case K_OPT_REPLY: return done_opt_reply (c);
  case K_EXPORT_FINISH: return done_export_finish (c);
  case K_REQUEST: return done_request (c, false);
  case K_REQUEST_EXT: return done_request (c, true);
  case K_REPLY_MAGIC: return done_reply_magic (c);
  case K_SIMPLE: return done_simple (c);
  case K_STRUCTURED: return done_chunk (c, false);
  case K_EXTENDED: return done_chunk (c, true);
  default: return SB_FRAMING_OFF_BAD_MAGIC;
  }
}

/* ---- Feeding bytes ---- */

/* Gather up to N header bytes from P; return how many were taken. */
static size_t
gather (struct ctx *c, const uint8_t *p, size_t n)
{
  struct sb_framing_dir *d = c->d;
  size_t k = (size_t) (d->need - d->have);
  unsigned from = d->have;

  if (k > n)
    k = n;
  memcpy (d->hdr + from, p, k);
  d->have = (uint8_t) (from + k);
  c->off = check_bytes (d, from, d->have);
  /* NBDMAGIC alone decides the role, whatever follows it. */
  if (d->kind == K_GREETING && from < 8 && d->have >= 8 && c->w &&
      c->off != SB_FRAMING_OFF_NOT_NBD) {
    uint8_t off = claim_role (c);
    if (!c->off)
      c->off = off;
  }
  while (!c->off && d->need != 0 && d->have == d->need)
    c->off = header_done (c);
  return k;
}

static void
feed (struct ctx *c, const uint8_t *p, size_t n)
{
  struct sb_framing_dir *d = c->d;
  size_t k;

  while (n > 0 && !c->off) {
    if (d->remaining > 0) {
      k = d->remaining < n ? (size_t) d->remaining : n;
      d->remaining -= k;
    }
    else {
      if (d->need == 0 && !begin_message (c))
        break;
      k = gather (c, p, n);
    }
    p += k;
    n -= k;
  }
}

static void
feed_iov (struct ctx *c, const struct iovec *iov, int iovcnt, size_t nbytes)
{
  int i;

  for (i = 0; i < iovcnt && nbytes > 0 && !c->off; i++) {
    size_t n = iov[i].iov_len < nbytes ? iov[i].iov_len : nbytes;
    if (n > 0)
      feed (c, iov[i].iov_base, n);
    nbytes -= n;
  }
}

static void
track (struct sb_framing *f, struct sb_framing_dir *d,
       const struct iovec *iov, int iovcnt, size_t nbytes)
{
  struct ctx c = {
    .f = f, .w = f, .d = d,
    .s2c = (d == &f->out) == (f->role == SB_FRAMING_ROLE_SERVER),
  };

  if (f->off)
    return;
  feed_iov (&c, iov, iovcnt, nbytes);
  f->off = c.off;
}

void
sb_framing_sent (struct sb_framing *f, const struct iovec *iov, int iovcnt,
                 size_t nbytes)
{
  track (f, &f->out, iov, iovcnt, nbytes);
}

void
sb_framing_received (struct sb_framing *f, const struct iovec *iov,
                     int iovcnt, size_t nbytes)
{
  track (f, &f->in, iov, iovcnt, nbytes);
}

bool
sb_framing_wants_more (const struct sb_framing *f, const struct iovec *iov,
                       int iovcnt)
{
  struct sb_framing_dir d;
  struct ctx c = { .f = f, .w = NULL, .d = &d,
                   .s2c = f->role == SB_FRAMING_ROLE_SERVER };

  if (f->off || f->role == SB_FRAMING_ROLE_UNKNOWN)
    return false;
  d = f->out;
  feed_iov (&c, iov, iovcnt, SIZE_MAX);
  return !c.off && (d.need != 0 || d.remaining != 0);
}

/* ---- Queries ---- */

bool
sb_framing_is_off (const struct sb_framing *f)
{
  return f->off != SB_FRAMING_ON;
}

enum sb_framing_role
sb_framing_role (const struct sb_framing *f)
{
  return (enum sb_framing_role) f->role;
}

bool
sb_framing_nbd_seen (const struct sb_framing *f)
{
  return f->nbd_seen;
}

enum sb_framing_off
sb_framing_off_code (const struct sb_framing *f)
{
  return (enum sb_framing_off) f->off;
}

const char *
sb_framing_off_reason (const struct sb_framing *f)
{
  switch (f->off) {
  case SB_FRAMING_ON: return "";
  case SB_FRAMING_OFF_NOT_NBD: return "stream does not start with NBDMAGIC";
  case SB_FRAMING_OFF_OLDSTYLE: return "not a fixed-newstyle handshake";
  case SB_FRAMING_OFF_BOTH_SPOKE: return "bytes both ways before the greeting";
  case SB_FRAMING_OFF_CLIENT_FLAGS: return "unknown client flags";
  case SB_FRAMING_OFF_BAD_MAGIC: return "unknown magic at a message boundary";
  case SB_FRAMING_OFF_BAD_LENGTH: return "impossible length in a header";
  case SB_FRAMING_OFF_NOT_NEGOTIATED: return "reply kind not negotiated";
  case SB_FRAMING_OFF_STARTTLS: return "TLS negotiated";
  case SB_FRAMING_OFF_COOKIES_FULL: return "too many READs in flight";
  case SB_FRAMING_OFF_DUP_COOKIE: return "READ cookie already in flight";
  case SB_FRAMING_OFF_AFTER_DISC: return "bytes after NBD_CMD_DISC";
  default: return "unknown reason";
  }
}
