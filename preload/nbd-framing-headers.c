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

/* ---- Complete headers ---- */

/* The header is done and PAYLOAD bytes follow it.  A header without a
 * magic of its own (greeting flags, client flags, export finish) never
 * earns MSG_MORE.
 */
static uint8_t
end_plain (struct sb_framing_ctx *c, uint64_t payload)
{
  c->d->have = 0;
  c->d->need = 0;
  c->d->remaining = payload;
  c->header_ended = false;
  return SB_FRAMING_ON;
}

/* The same for a header whose magic was checked: MSG_MORE is right while
 * the pass ends after it, or within the first LEAD bytes of its payload
 * (fixed fields that a program writes with the header).  DATA: the
 * payload is a READ's or a WRITE's data, which a program that writes
 * headers apart writes apart.
 */
static uint8_t
end_checked (struct sb_framing_ctx *c, uint64_t payload, uint64_t lead,
             bool data)
{
  end_plain (c, payload);
  c->header_ended = true;
  c->data_payload = data;
  c->more_min = payload > lead ? payload - lead : 1;
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
  return end_plain (c, 0);
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
  return end_plain (c, 0);
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
    atomic_store_explicit (&c->w->nbd_seen, true, memory_order_relaxed);
  return end_checked (c, len, 0, false);
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
  return off ? off : end_checked (c, len, 0, false);
}

static uint8_t
done_export_finish (struct sb_framing_ctx *c)
{
  uint8_t both = ST_SERVER_NO_ZEROES | ST_CLIENT_NO_ZEROES;
  bool no_zeroes = (c->state & both) == both;

  sb_framing_set_state (c, ST_TRANSMISSION);
  return end_plain (c, no_zeroes ? 0 : NBD_EXPORT_NAME_ZEROES);
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
  if (type == NBD_CMD_READ && c->w && c->role == SB_FRAMING_ROLE_SERVER
      && sb_framing_simple_mode (c->state))
    off = sb_framing_reads_add (c, cookie, (uint32_t) len);
  return off ? off : end_checked (c, data ? len : 0, 0,
                                  type == NBD_CMD_WRITE);
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

/* A simple reply carries data only for a successful READ we saw asked,
 * and only in simple-reply mode.
 */
static uint8_t
done_simple (struct sb_framing_ctx *c)
{
  const uint8_t *h = c->d->hdr;
  uint32_t error = sb_get_be32 (FIELD (h, struct nbd_simple_reply, error));
  uint64_t cookie = sb_get_be64 (FIELD (h, struct nbd_simple_reply, cookie));
  uint64_t len = 0;
  uint8_t off = SB_FRAMING_ON;

  if (sb_framing_simple_mode (c->state))
    off = sb_framing_reads_answer (c, cookie, &len);
  return off ? off : end_checked (c, error == NBD_SUCCESS ? len : 0, 0,
                                  len > 0);
}

/* The fixed fields at the start of a chunk's payload, which a program
 * may write together with the chunk header.
 */
static uint64_t
chunk_lead (uint16_t type)
{
  switch (type) {
  case NBD_REPLY_TYPE_OFFSET_DATA:
    return sizeof (struct nbd_structured_reply_offset_data);
  case NBD_REPLY_TYPE_OFFSET_HOLE:
    return sizeof (struct nbd_structured_reply_offset_hole);
  case NBD_REPLY_TYPE_BLOCK_STATUS:
    return sizeof (struct nbd_structured_reply_block_status_hdr);
  case NBD_REPLY_TYPE_BLOCK_STATUS_EXT:
    return sizeof (struct nbd_structured_reply_block_status_ext_hdr);
  case NBD_REPLY_TYPE_ERROR: case NBD_REPLY_TYPE_ERROR_OFFSET:
    return sizeof (struct nbd_structured_reply_error);
  default:
    return 0;
  }
}

/* Structured and extended chunks carry their own length. */
static uint8_t
done_chunk (struct sb_framing_ctx *c, bool ext)
{
  const uint8_t *h = c->d->hdr;
  uint16_t type = sb_get_be16 (FIELD (h, struct nbd_structured_reply, type));
  uint64_t len = ext ? sb_get_be64 (FIELD (h, struct nbd_extended_reply, length))
    : sb_get_be32 (FIELD (h, struct nbd_structured_reply, length));

  if (len > MAX_PAYLOAD)
    return SB_FRAMING_OFF_BAD_LENGTH;
  return end_checked (c, len, chunk_lead (type),
                      type == NBD_REPLY_TYPE_OFFSET_DATA);
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
