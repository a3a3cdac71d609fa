/* SPDX-License-Identifier: MIT */
/* The transmission phase: decode, check and serve requests one by one. */
#include <endian.h>
#include <errno.h>

#include "nbd-protocol.h"
#include "server.h"

/* Flags each command may carry; anything else is EINVAL. */
static uint16_t
allowed_flags (const struct conn *c, uint16_t type)
{
  switch (type) {
  case NBD_CMD_READ:
    return NBD_CMD_FLAG_FUA | (c->structured ? NBD_CMD_FLAG_DF : 0);
  case NBD_CMD_WRITE:
    return NBD_CMD_FLAG_FUA | (c->extended ? NBD_CMD_FLAG_PAYLOAD_LEN : 0);
  case NBD_CMD_FLUSH: case NBD_CMD_TRIM:
    return NBD_CMD_FLAG_FUA;
  case NBD_CMD_WRITE_ZEROES:
    return NBD_CMD_FLAG_FUA | NBD_CMD_FLAG_NO_HOLE | NBD_CMD_FLAG_FAST_ZERO;
  case NBD_CMD_BLOCK_STATUS:
    return NBD_CMD_FLAG_FUA | NBD_CMD_FLAG_REQ_ONE;
  default:
    return 0;
  }
}

static uint32_t
nbd_error (int err)
{
  switch (err) {
  case EPERM: case EROFS: return NBD_EPERM;
  case ENOMEM: return NBD_ENOMEM;
  case EINVAL: return NBD_EINVAL;
  case ENOSPC: case EFBIG: case EDQUOT: return NBD_ENOSPC;
  case EOVERFLOW: return NBD_EOVERFLOW;
  case ENOTSUP: return NBD_ENOTSUP;
  case ESHUTDOWN: return NBD_ESHUTDOWN;
  default: return NBD_EIO;
  }
}

static bool
is_write_type (uint16_t type)
{
  return type == NBD_CMD_WRITE || type == NBD_CMD_TRIM
    || type == NBD_CMD_WRITE_ZEROES;
}

static bool
is_known (uint16_t type)
{
  return type == NBD_CMD_READ || type == NBD_CMD_WRITE
    || type == NBD_CMD_FLUSH || type == NBD_CMD_TRIM
    || type == NBD_CMD_WRITE_ZEROES || type == NBD_CMD_BLOCK_STATUS;
}

/* The error this request deserves before touching the backend, or 0. */
static uint32_t
check_request (const struct conn *c, const struct request *r)
{
  uint64_t size = c->ex->be.size;
  bool fits = r->len <= size && r->off <= size - r->len;

  if (!is_known (r->type) || (r->flags & ~allowed_flags (c, r->type)) != 0)
    return NBD_EINVAL;
  if (r->type == NBD_CMD_FLUSH)
    return 0;
  if (r->type == NBD_CMD_BLOCK_STATUS && !c->meta_allocation)
    return NBD_EINVAL;
  /* Only payloads are bounded; a trim or zero may cover any length. */
  if (r->len == 0 || (r->len > NBD_MAX_PAYLOAD && (r->type == NBD_CMD_READ
                                                   || r->type == NBD_CMD_WRITE)))
    return NBD_EINVAL;
  if (c->ex->read_only && is_write_type (r->type))
    return NBD_EPERM;
  if (!fits)
    return r->type == NBD_CMD_WRITE || r->type == NBD_CMD_WRITE_ZEROES
      ? NBD_ENOSPC : NBD_EINVAL;
  return 0;
}

static void
log_refused (const struct conn *c, const struct request *r, uint32_t error)
{
  conn_log (c, "request type %u flags 0x%x offset %llu length %llu: error %u",
            r->type, r->flags, (unsigned long long) r->off,
            (unsigned long long) r->len, error);
}

/* The pieces of a READ: its extents, with the ones that read as zero
 * as holes and the data ones read (into BUF when the backend needs it);
 * past READ_CHUNKS_MAX pieces the rest is data.  Only a structured reply
 * can carry holes, and DF asks for one piece.  0 or an errno value.
 */
static int
read_pieces (struct conn *c, const struct request *r, uint8_t *buf,
             struct read_chunk *k, unsigned *n)
{
  struct backend *be = &c->ex->be;
  struct extent e[READ_CHUNKS_MAX];
  struct extent_list l = { .e = e, .max = READ_CHUNKS_MAX - 1 };
  uint64_t off = r->off;
  unsigned i;
  int err = 0;

  if (c->structured && !(r->flags & NBD_CMD_FLAG_DF))
    err = be->ops->extents (be, r->off, r->len, &l);
  /* Not knowing where the holes are costs only their transfer. */
  if (err != 0) {
    l.n = 0;
    l.covered = 0;
  }
  l.max++;
  if (l.covered < r->len)
    extent_add (&l, r->len - l.covered, 0);
  for (i = 0; i < l.n; i++) {
    k[i] = (struct read_chunk) { .off = off, .len = e[i].length };
    if (!(e[i].flags & NBD_STATE_ZERO)) {
      err = be->ops->read (be, buf ? buf + (off - r->off) : NULL, off,
                           (uint32_t) e[i].length, &k[i].data);
      if (err != 0)
        return err;
    }
    off += e[i].length;
  }
  *n = l.n;
  return 0;
}

static int
do_read (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  struct read_chunk k[READ_CHUNKS_MAX];
  uint8_t *buf = NULL;
  unsigned n;
  int err;

  if (be->reads_into_buffer && (buf = conn_buffer (c)) == NULL)
    return reply_error (c, r, NBD_ENOMEM);
  err = read_pieces (c, r, buf, k, &n);
  if (err != 0)
    return reply_error (c, r, nbd_error (err));
  return reply_read (c, r, k, n);
}

/* The payload is always consumed, so the stream stays in step. */
static int
do_write (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  uint8_t *dest;
  int err;

  dest = be->ops->write_dest (be, r->off);
  if (dest == NULL && (dest = conn_buffer (c)) == NULL) {
    if (conn_discard (c, r->payload) == -1)
      return -1;
    return reply_error (c, r, NBD_ENOMEM);
  }
  if (conn_recv (c, dest, r->len) == -1)
    return -1;
  err = be->ops->write (be, dest, r->off, (uint32_t) r->len,
                        (r->flags & NBD_CMD_FLAG_FUA) != 0);
  return err ? reply_error (c, r, nbd_error (err)) : reply_ok (c, r);
}

/* At most BLOCK_STATUS_MAX_EXTENTS, or one for REQ_ONE; never past the
 * request, so that REQ_ONE's bound holds and every length fits.
 */
static int
do_block_status (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  struct extent e[BLOCK_STATUS_MAX_EXTENTS];
  struct extent_list l = {
    .e = e, .max = r->flags & NBD_CMD_FLAG_REQ_ONE ? 1
    : BLOCK_STATUS_MAX_EXTENTS,
  };
  int err = be->ops->extents (be, r->off, r->len, &l);

  if (err != 0)
    return reply_error (c, r, nbd_error (err));
  return reply_block_status (c, r, &l);
}

static int
do_other (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  bool fua = (r->flags & NBD_CMD_FLAG_FUA) != 0;
  int err;

  switch (r->type) {
  case NBD_CMD_FLUSH:
    err = be->ops->flush (be);
    break;
  case NBD_CMD_TRIM:
    err = be->ops->trim (be, r->off, r->len, fua);
    break;
  default:                      /* NBD_CMD_WRITE_ZEROES */
    err = be->ops->zero (be, r->off, r->len,
                         (r->flags & NBD_CMD_FLAG_NO_HOLE) == 0,
                         (r->flags & NBD_CMD_FLAG_FAST_ZERO) != 0, fua);
    break;
  }
  return err ? reply_error (c, r, nbd_error (err)) : reply_ok (c, r);
}

static int
serve_request (struct conn *c, const struct request *r)
{
  uint32_t error = check_request (c, r);

  if (error != 0) {
    log_refused (c, r, error);
    if (r->payload > 0 && conn_discard (c, r->payload) == -1)
      return -1;
    return reply_error (c, r, error);
  }
  switch (r->type) {
  case NBD_CMD_READ: return do_read (c, r);
  case NBD_CMD_WRITE: return do_write (c, r);
  case NBD_CMD_BLOCK_STATUS: return do_block_status (c, r);
  default: return do_other (c, r);
  }
}

/* Read one request header in the negotiated style.  0 or -1. */
static int
recv_request (struct conn *c, struct request *r)
{
  union {
    struct nbd_request compact;
    struct nbd_request_ext ext;
  } w;
  uint32_t want = c->extended ? NBD_EXTENDED_REQUEST_MAGIC : NBD_REQUEST_MAGIC;

  if (conn_recv (c, &w, c->extended ? sizeof w.ext : sizeof w.compact) == -1) {
    if (errno == ENODATA)
      conn_log (c, "client disconnected without NBD_CMD_DISC");
    else
      conn_log (c, "reading a request: %m");
    return -1;
  }
  if (be32toh (w.compact.magic) != want) {
    conn_log (c, "bad request magic 0x%08x", be32toh (w.compact.magic));
    return -1;
  }
  /* The layouts agree up to the length. */
  *r = (struct request) { .flags = be16toh (w.compact.flags),
                          .type = be16toh (w.compact.type),
                          .cookie = w.compact.cookie,
                          .off = be64toh (w.compact.offset),
                          .len = c->extended ? be64toh (w.ext.count)
                          : be32toh (w.compact.count) };
  return 0;
}

/* How many payload bytes follow R's header: a WRITE's data; with
 * extended headers also whatever NBD_CMD_FLAG_PAYLOAD_LEN announces,
 * which past NBD_MAX_PAYLOAD is a reason to hang up (-1).  The spec has
 * an extended WRITE say PAYLOAD_LEN, but QEMU's client does not, and a
 * WRITE has its data whatever the flag says (QEMU's server reads it so).
 */
static int
payload_length (struct conn *c, struct request *r)
{
  bool has = r->type == NBD_CMD_WRITE
    || (c->extended && (r->flags & NBD_CMD_FLAG_PAYLOAD_LEN));

  r->payload = has ? r->len : 0;
  if (!c->extended)
    return 0;
  if (r->payload > NBD_MAX_PAYLOAD) {
    conn_log (c, "payload of %llu bytes announced",
              (unsigned long long) r->payload);
    return -1;
  }
  return 0;
}

/* Returns 1 with *R filled, 0 on a clean end of the session, -1 on error. */
static int
next_request (struct conn *c, struct request *r)
{
  conn_idle_release (c);
  if (recv_request (c, r) == -1 || payload_length (c, r) == -1)
    return -1;
  return r->type == NBD_CMD_DISC ? 0 : 1;
}

void
transmit (struct conn *c)
{
  struct request r;
  int n;

  while ((n = next_request (c, &r)) == 1) {
    if (serve_request (c, &r) == -1) {
      conn_log (c, "serving a request: %m");
      return;
    }
  }
  if (n == 0)
    conn_log (c, "client sent NBD_CMD_DISC");
}
