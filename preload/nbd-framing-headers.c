/* SPDX-License-Identifier: MIT */
/* NBD framing tracker: what each complete header means, its payload
 * length and its effect on the negotiated state and the READs in flight.
 */
#include <endian.h>
#include <string.h>

#include "be-bytes.h"
#include "nbd-framing-impl.h"
#include "nbd-protocol.h"

/* Tracker policy, not protocol: a length past these means the frame was
 * lost (nbdkit allows 64 MiB requests; option data is a few KiB).
 */
#define MAX_OPTION_DATA (UINT32_C(1) << 20)
#define MAX_PAYLOAD ((uint64_t) 4 * NBD_MAX_PAYLOAD)

#define FIELD(hdr, type, field) ((hdr) + offsetof (type, field))

/* ---- Table of READs in flight: cookie -> length ---- */

static bool
is_gone (const struct sb_framing_ctx *c, int i)
{
  return (c->gone[i / 64] >> (i % 64)) & 1;
}

static int
cookie_find (const struct sb_framing_ctx *c, uint64_t cookie)
{
  int i;

  for (i = 0; i < c->f->ncookies; i++)
    if (c->f->cookie[i] == cookie && !is_gone (c, i))
      return i;
  return -1;
}

static uint8_t
cookie_add (struct sb_framing_ctx *c, uint64_t cookie, uint32_t len)
{
  struct sb_framing *w = c->w;

  if (cookie_find (c, cookie) >= 0)
    return SB_FRAMING_OFF_DUP_COOKIE;
  if (w->ncookies >= SB_FRAMING_COOKIES)
    return SB_FRAMING_OFF_COOKIES_FULL;
  w->cookie[w->ncookies] = cookie;
  w->read_len[w->ncookies] = len;
  w->ncookies++;
  return SB_FRAMING_ON;
}

/* Order does not matter: the last entry fills the hole.  A dry run only
 * marks the entry, so that a second reply in the same pass misses it.
 */
static void
cookie_drop (struct sb_framing_ctx *c, uint64_t cookie)
{
  struct sb_framing *w = c->w;
  int i = cookie_find (c, cookie);

  if (i < 0)
    return;
  if (w == NULL) {
    c->gone[i / 64] |= UINT64_C(1) << (i % 64);
    return;
  }
  w->ncookies--;
  w->cookie[i] = w->cookie[w->ncookies];
  w->read_len[i] = w->read_len[w->ncookies];
}

/* ---- Complete headers ---- */

/* The header is done and PAYLOAD bytes follow it. */
static uint8_t
end_header (struct sb_framing_dir *d, uint64_t payload)
{
  d->have = 0;
  d->need = 0;
  d->remaining = payload;
  return SB_FRAMING_ON;
}

static uint8_t
done_greeting (struct sb_framing_ctx *c)
{
  uint16_t gflags = sb_get_be16 (FIELD (c->d->hdr, struct nbd_new_handshake,
                                  gflags));

  if (!(gflags & NBD_FLAG_FIXED_NEWSTYLE))
    return SB_FRAMING_OFF_OLDSTYLE;
  if (gflags & NBD_FLAG_NO_ZEROES)
    sb_framing_set_state (c, ST_SERVER_NO_ZEROES);
  return end_header (c->d, 0);
}

static uint8_t
done_client_flags (struct sb_framing_ctx *c)
{
  uint32_t flags = sb_get_be32 (c->d->hdr);

  if (flags & ~(uint32_t) (NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES))
    return SB_FRAMING_OFF_CLIENT_FLAGS;
  sb_framing_set_state (c, ST_CLIENT_FLAGS);
  if (flags & NBD_FLAG_C_NO_ZEROES)
    sb_framing_set_state (c, ST_CLIENT_NO_ZEROES);
  return end_header (c->d, 0);
}

static uint8_t
done_option (struct sb_framing_ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t option = sb_get_be32 (FIELD (h, struct nbd_option, option));
  uint32_t len = sb_get_be32 (FIELD (h, struct nbd_option, optlen));

  if (len > MAX_OPTION_DATA)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (option == NBD_OPT_EXPORT_NAME)
    sb_framing_set_state (c, ST_EXPORT_NAME);
  if (c->w && c->sending)
    c->w->nbd_seen = 1;
  return end_header (c->d, len);
}

/* An ACK switches on what its option asked for. */
static uint8_t
apply_ack (struct sb_framing_ctx *c, uint32_t option)
{
  switch (option) {
  case NBD_OPT_GO: sb_framing_set_state (c, ST_TRANSMISSION); break;
  case NBD_OPT_STRUCTURED_REPLY: sb_framing_set_state (c, ST_STRUCTURED); break;
  case NBD_OPT_EXTENDED_HEADERS: sb_framing_set_state (c, ST_EXTENDED); break;
  case NBD_OPT_STARTTLS: return SB_FRAMING_OFF_STARTTLS;
  default: break;
  }
  return SB_FRAMING_ON;
}

static uint8_t
done_opt_reply (struct sb_framing_ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t option, type, len;
  uint8_t off = SB_FRAMING_ON;

  option = sb_get_be32 (FIELD (h, struct nbd_fixed_new_option_reply, option));
  type = sb_get_be32 (FIELD (h, struct nbd_fixed_new_option_reply, reply));
  len = sb_get_be32 (FIELD (h, struct nbd_fixed_new_option_reply, replylen));
  if (len > MAX_OPTION_DATA || (type == NBD_REP_ACK && len != 0))
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (type == NBD_REP_ACK)
    off = apply_ack (c, option);
  return off ? off : end_header (c->d, len);
}

static uint8_t
done_export_finish (struct sb_framing_ctx *c)
{
  uint8_t both = ST_SERVER_NO_ZEROES | ST_CLIENT_NO_ZEROES;
  bool no_zeroes = (c->state & both) == both;

  sb_framing_set_state (c, ST_TRANSMISSION);
  return end_header (c->d, no_zeroes ? 0 : NBD_EXPORT_NAME_ZEROES);
}

/* Compact and extended requests share the layout up to the length. */
static uint8_t
done_request (struct sb_framing_ctx *c, bool ext)
{
  const uint8_t *h = c->d->hdr;
  uint16_t flags = sb_get_be16 (FIELD (h, struct nbd_request, flags));
  uint16_t type = sb_get_be16 (FIELD (h, struct nbd_request, type));
  uint64_t cookie = sb_get_be64 (FIELD (h, struct nbd_request, cookie));
  uint64_t len = ext ? sb_get_be64 (FIELD (h, struct nbd_request_ext, count))
    : sb_get_be32 (FIELD (h, struct nbd_request, count));
  /* A WRITE always carries its data: QEMU (11 at least) sends extended
   * WRITEs without PAYLOAD_LEN, and its server and ours read the payload
   * all the same.  Other extended requests carry one if the flag says so.
   */
  bool data = type == NBD_CMD_WRITE ||
    (ext && (flags & NBD_CMD_FLAG_PAYLOAD_LEN));
  uint8_t off = SB_FRAMING_ON;

  if ((data || type == NBD_CMD_READ) && len > MAX_PAYLOAD)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (type == NBD_CMD_DISC)
    sb_framing_set_state (c, ST_DISC);
  if (type == NBD_CMD_READ && c->w)
    off = cookie_add (c, cookie, (uint32_t) len);
  return off ? off : end_header (c->d, data ? len : 0);
}

/* The magic says which reply header this is, if it was agreed on. */
static uint8_t
done_reply_magic (struct sb_framing_ctx *c)
{
  uint32_t magic = sb_get_be32 (c->d->hdr);
  bool ext = c->state & ST_EXTENDED;
  bool structured = c->state & ST_STRUCTURED;
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
  c->d->need = sb_framing_header_size (kind);
  return SB_FRAMING_ON;
}

/* A simple reply carries data only for a successful READ we saw asked. */
static uint8_t
done_simple (struct sb_framing_ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t error = sb_get_be32 (FIELD (h, struct nbd_simple_reply, error));
  uint64_t cookie = sb_get_be64 (FIELD (h, struct nbd_simple_reply, cookie));
  int i = cookie_find (c, cookie);
  uint64_t payload = i >= 0 && error == NBD_SUCCESS ? c->f->read_len[i] : 0;

  cookie_drop (c, cookie);
  return end_header (c->d, payload);
}

/* Structured and extended chunks carry their own length. */
static uint8_t
done_chunk (struct sb_framing_ctx *c, bool ext)
{
  const uint8_t *h = c->d->hdr;
  uint16_t flags = sb_get_be16 (FIELD (h, struct nbd_structured_reply, flags));
  uint64_t cookie = sb_get_be64 (FIELD (h, struct nbd_structured_reply, cookie));
  uint64_t len = ext ? sb_get_be64 (FIELD (h, struct nbd_extended_reply, length))
    : sb_get_be32 (FIELD (h, struct nbd_structured_reply, length));

  if (len > MAX_PAYLOAD)
    return SB_FRAMING_OFF_BAD_LENGTH;
  if (flags & NBD_REPLY_FLAG_DONE)
    cookie_drop (c, cookie);
  return end_header (c->d, len);
}

uint8_t
sb_framing_header_done (struct sb_framing_ctx *c)
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

uint8_t
sb_framing_header_size (uint8_t kind)
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
